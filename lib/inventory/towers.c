/* Vision towers as rows: a tower the library sizes images for is one row here. */
#include "inventory/towers.h"

static const llmmem__tower towers[] = {
    /* transformers Qwen2VLImageProcessor smart_resize into max_pixels (Qwen2.5-VL's
     * preprocessor_config.json: 12845056), a side of floor(sqrt(pixels) / factor) factors;
     * vllm qwen2_vl.py Qwen2VLProcessingInfo.get_image_size_with_most_features */
    {LLMMEM__VISION_QWEN2_5_VL, 12845056ULL, 0, 0, 0, 2},
    /* Qwen3-VL: size.longest_edge 16777216; vllm qwen3_vl.py Qwen3_VisionTransformer.forward
     * concatenates the merger's output and each deepstack merger's */
    {LLMMEM__VISION_QWEN3_VL, 16777216ULL, 0, 0, 1, 2},
    /* vllm pixtral.py PixtralHFEncoderInfo: an image of image_size in patches of patch_size x
     * spatial_merge_size, rounded up; mistral3.py's projector gives the text width */
    {LLMMEM__VISION_PIXTRAL, 0, 1, 1, 0, 1},
};

const llmmem__tower *llmmem__tower_of(int64_t kind)
{
    for (size_t i = 0; i < sizeof towers / sizeof towers[0]; i++)
        if ((int64_t)towers[i].kind == kind)
            return &towers[i];
    return NULL;
}

static const llmmem__tower_item items[] = {
    /* Kimi-K2.5 (vllm kimi_k25.py KimiK25DummyInputsBuilder.get_dummy_mm_items: the larger of a 3000 x 3000
     * image and a 4-frame chunk of them, by the checkpoint's media_tokens_calculator, media_utils.py
     * navit_resize_image with preprocessor_config.json's in_patch_limit 16384, patch_limit_on_one_side 512):
     * 3000 scaled by sqrt(16384 / 214^2) to 1794 pixels, padded to 65 squares of 28 a side: 65^2 */
    {LLMMEM__VISION_MOONVIT, 4225, 0},
    /* EXAONE 4.5 (vllm exaone4_5.py Exaone4_5_ProcessingInfo.get_image_processor builds
     * Exaone4_5_ImageProcessor, a Qwen2VLImageProcessor with its default longest_edge 28 x 28 x 1280) */
    {LLMMEM__VISION_EXAONE4_5, 0, 1003520},
    /* MiniMax-M3 (vllm models/minimax_m3/common/mm_preprocess.py MiniMaxM3VLProcessingInfo): a square within the
     * checkpoint's preprocessor_config.json max_pixels or max_long_side_pixel, a file not read */
    {LLMMEM__VISION_MINIMAX_M3, 0, 0},
};

const llmmem__tower_item *llmmem__tower_item_of(int64_t kind)
{
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
        if ((int64_t)items[i].kind == kind)
            return &items[i];
    return NULL;
}

uint64_t llmmem__tower_budget_tokens(uint64_t pixels, uint64_t factor)
{
    if (factor == 0 || factor > UINT32_MAX)
        return 0;
    for (uint64_t n = pixels / (factor * factor); n > 0; n--) {
        uint64_t a = llmmem__isqrt(n);
        while (n % a) /* the closest pair's shorter side: the largest divisor up to sqrt(n) */
            a--;
        if (n / a <= 200 * a)
            return n;
    }
    return 0;
}
