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
