/* Local inference hardware (issue 18): the hardware keys unified_memory and backend, and the
 * presets for consumer GPUs and Apple Silicon, each held to the capacity its source states
 * (lib/readers/catalog_gpus.c cites the sources). */
#include <stdio.h>
#include <string.h>

#include "unit.h"

static llmmem_hardware *gpu(const char *name)
{
    llmmem_hardware *hw = NULL;
    ck_assert_ok(llmmem_hardware_from_preset(&hw, name));
    return hw;
}

static int64_t get(const llmmem_hardware *hw, llmmem_key key)
{
    int64_t v = -1;
    ck_assert_ok(llmmem_hardware_get_int(&v, hw, key));
    return v;
}

/* Keys 2011 and 2012 are pinned, belong to the hardware, and default to a CUDA device of its own. */
START_TEST(test_keys_pinned_and_defaults)
{
    ck_assert_int_eq(LLMMEM_KEY_UNIFIED_MEMORY, 2011);
    ck_assert_int_eq(LLMMEM_KEY_BACKEND, 2012);
    ck_assert_int_eq(LLMMEM_BACKEND_CUDA, 0);
    ck_assert_int_eq(LLMMEM_BACKEND_ROCM, 1);
    ck_assert_int_eq(LLMMEM_BACKEND_METAL, 2);
    ck_assert_int_eq(LLMMEM_BACKEND_VULKAN, 3);
    ck_assert_int_eq(LLMMEM_BACKEND_CPU, 4);

    llmmem_key key;
    ck_assert_ok(llmmem_key_from_name(&key, "unified_memory"));
    ck_assert_int_eq(key, LLMMEM_KEY_UNIFIED_MEMORY);
    ck_assert_ok(llmmem_key_from_name(&key, "backend"));
    ck_assert_int_eq(key, LLMMEM_KEY_BACKEND);

    llmmem_object object;
    llmmem_value_type type;
    ck_assert_ok(llmmem_key_object(&object, LLMMEM_KEY_UNIFIED_MEMORY));
    ck_assert_int_eq(object, LLMMEM_OBJECT_HARDWARE);
    ck_assert_ok(llmmem_key_type(&type, LLMMEM_KEY_UNIFIED_MEMORY));
    ck_assert_int_eq(type, LLMMEM_TYPE_BOOL);
    ck_assert_ok(llmmem_key_object(&object, LLMMEM_KEY_BACKEND));
    ck_assert_int_eq(object, LLMMEM_OBJECT_HARDWARE);
    ck_assert_ok(llmmem_key_type(&type, LLMMEM_KEY_BACKEND));
    ck_assert_int_eq(type, LLMMEM_TYPE_CHOICE);

    int64_t v;
    ck_assert_ok(llmmem_key_default(&v, LLMMEM_KEY_UNIFIED_MEMORY));
    ck_assert_int_eq(v, 0);
    ck_assert_ok(llmmem_key_default(&v, LLMMEM_KEY_BACKEND));
    ck_assert_int_eq(v, LLMMEM_BACKEND_CUDA);

    llmmem_hardware *hw = NULL;
    ck_assert_ok(llmmem_hardware_new(&hw));
    ck_assert_int_eq(get(hw, LLMMEM_KEY_UNIFIED_MEMORY), 0);
    ck_assert_int_eq(get(hw, LLMMEM_KEY_BACKEND), LLMMEM_BACKEND_CUDA);
    llmmem_hardware_free(hw);
}
END_TEST

/* The backend names, in llmmem_backend order, as text and as values. */
START_TEST(test_backend_names)
{
    static const char *const names[] = {"cuda", "rocm", "metal", "vulkan", "cpu"};
    for (int64_t i = 0; i < 5; i++) {
        ck_assert_str_eq(llmmem_choice_name(LLMMEM_KEY_BACKEND, i), names[i]);
        int64_t v = -1;
        ck_assert_ok(llmmem_choice_from_name(&v, LLMMEM_KEY_BACKEND, names[i]));
        ck_assert_int_eq(v, i);
    }
    ck_assert_ptr_null(llmmem_choice_name(LLMMEM_KEY_BACKEND, 5));
    int64_t v;
    ck_assert_status(llmmem_choice_from_name(&v, LLMMEM_KEY_BACKEND, "opencl"), LLMMEM_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "metal"));

    llmmem_hardware *hw = NULL;
    ck_assert_ok(llmmem_hardware_new(&hw));
    ck_assert_ok(llmmem_hardware_set_text(hw, "backend", "vulkan"));
    ck_assert_int_eq(get(hw, LLMMEM_KEY_BACKEND), LLMMEM_BACKEND_VULKAN);
    ck_assert_ok(llmmem_hardware_set_text(hw, "unified_memory", "true"));
    ck_assert_int_eq(get(hw, LLMMEM_KEY_UNIFIED_MEMORY), 1);
    ck_assert_status(llmmem_hardware_set_int(hw, LLMMEM_KEY_BACKEND, 5), LLMMEM_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "backend"));
    llmmem_hardware_free(hw);

    llmmem_strategy *s = NULL;
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_status(llmmem_strategy_set_int(s, LLMMEM_KEY_BACKEND, LLMMEM_BACKEND_METAL), LLMMEM_ERR_UNKNOWN_KEY);
    ck_assert_ptr_nonnull(strstr(llmmem_last_message(), "backend belongs to the hardware"));
    llmmem_strategy_free(s);
}
END_TEST

/* AMD Instinct presets run ROCm; the NVIDIA datacenter presets keep the CUDA default. */
START_TEST(test_datacenter_backends)
{
    static const char *const rocm[] = {"mi250x", "mi300x", "mi325x"};
    for (size_t i = 0; i < sizeof rocm / sizeof rocm[0]; i++) {
        llmmem_hardware *hw = gpu(rocm[i]);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_BACKEND), LLMMEM_BACKEND_ROCM);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_UNIFIED_MEMORY), 0);
        llmmem_hardware_free(hw);
    }
    static const char *const cuda[] = {"h100-sxm-80gb", "a100-sxm-80gb", "rtx-4090", "l4"};
    for (size_t i = 0; i < sizeof cuda / sizeof cuda[0]; i++) {
        llmmem_hardware *hw = gpu(cuda[i]);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_BACKEND), LLMMEM_BACKEND_CUDA);
        llmmem_hardware_free(hw);
    }
}
END_TEST

/* Consumer GPUs: the capacity in GB on each vendor's specifications page is that many GiB of
 * GDDR (12 GB = 12 x 2^30 bytes, as the datacenter presets), the bandwidth is bus width x data
 * rate in decimal MB/s, and the host link the card's PCIe generation and width. */
static const struct {
    const char *name;
    uint64_t gb;        /* "12 GB" on the specifications page */
    uint64_t mb_s;      /* memory bandwidth, decimal MB/s */
    uint64_t pcie_gb_s; /* one direction: Gen4 x16 32, Gen4 x8 16, Gen5 x16 64, Gen5 x8 32 */
    llmmem_backend backend;
} discrete[] = {
    {"rtx-3060-12gb", 12, 360000, 32, LLMMEM_BACKEND_CUDA},     /* 192-bit x 15 Gbps */
    {"rtx-3060-ti", 8, 448000, 32, LLMMEM_BACKEND_CUDA},        /* 256-bit x 14 Gbps */
    {"rtx-3070", 8, 448000, 32, LLMMEM_BACKEND_CUDA},           /* 256-bit x 14 Gbps */
    {"rtx-3080-10gb", 10, 760000, 32, LLMMEM_BACKEND_CUDA},     /* 320-bit x 19 Gbps */
    {"rtx-3080-12gb", 12, 912000, 32, LLMMEM_BACKEND_CUDA},     /* 384-bit x 19 Gbps */
    {"rtx-3080-ti", 12, 912000, 32, LLMMEM_BACKEND_CUDA},       /* 384-bit x 19 Gbps */
    {"rtx-4060", 8, 272000, 16, LLMMEM_BACKEND_CUDA},           /* 128-bit x 17 Gbps, Gen4 x8 */
    {"rtx-4060-ti-8gb", 8, 288000, 16, LLMMEM_BACKEND_CUDA},    /* 128-bit x 18 Gbps, Gen4 x8 */
    {"rtx-4060-ti-16gb", 16, 288000, 16, LLMMEM_BACKEND_CUDA},  /* 128-bit x 18 Gbps, Gen4 x8 */
    {"rtx-4070", 12, 504000, 32, LLMMEM_BACKEND_CUDA},          /* 192-bit x 21 Gbps */
    {"rtx-4070-super", 12, 504000, 32, LLMMEM_BACKEND_CUDA},    /* 192-bit x 21 Gbps */
    {"rtx-4070-ti-super", 16, 672000, 32, LLMMEM_BACKEND_CUDA}, /* 256-bit x 21 Gbps */
    {"rtx-4080", 16, 716800, 32, LLMMEM_BACKEND_CUDA},          /* 256-bit x 22.4 Gbps (Ada whitepaper) */
    {"rtx-4080-super", 16, 736000, 32, LLMMEM_BACKEND_CUDA},    /* 256-bit x 23 Gbps */
    {"rtx-5060-ti-16gb", 16, 448000, 32, LLMMEM_BACKEND_CUDA},  /* 128-bit x 28 Gbps, Gen5 x8 */
    {"rtx-5070", 12, 672000, 64, LLMMEM_BACKEND_CUDA},          /* 192-bit x 28 Gbps */
    {"rtx-5070-ti", 16, 896000, 64, LLMMEM_BACKEND_CUDA},       /* 256-bit x 28 Gbps */
    {"rtx-5080", 16, 960000, 64, LLMMEM_BACKEND_CUDA},          /* 256-bit x 30 Gbps */
    {"rx-7900-xtx", 24, 960000, 32, LLMMEM_BACKEND_ROCM},       /* 384-bit x 20 Gbps */
    {"rx-7900-xt", 20, 800000, 32, LLMMEM_BACKEND_ROCM},        /* 320-bit x 20 Gbps */
    {"rx-7800-xt", 16, 624000, 32, LLMMEM_BACKEND_ROCM},        /* 256-bit x 19.5 Gbps */
    {"rx-9070-xt", 16, 640000, 64, LLMMEM_BACKEND_ROCM},        /* 256-bit x 20 Gbps, Gen5 x16 */
};

START_TEST(test_discrete_gpus)
{
    for (size_t i = 0; i < sizeof discrete / sizeof discrete[0]; i++) {
        llmmem_hardware *hw = gpu(discrete[i].name);
        ck_assert_msg(get(hw, LLMMEM_KEY_MEMORY_BYTES) == (int64_t)(discrete[i].gb * GIB), "%s: %lld bytes",
                      discrete[i].name, (long long)get(hw, LLMMEM_KEY_MEMORY_BYTES));
        ck_assert_int_eq(get(hw, LLMMEM_KEY_MEMORY_BANDWIDTH), (int64_t)discrete[i].mb_s * 1000000);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_INTRA_NODE_BANDWIDTH), (int64_t)(discrete[i].pcie_gb_s * GB));
        ck_assert_int_eq(get(hw, LLMMEM_KEY_DEVICES_PER_NODE), 1);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_HOST_MEMORY_BYTES), 0);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_UNIFIED_MEMORY), 0);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_BACKEND), discrete[i].backend);
        /* a discrete card keeps the default runtime overhead (-1: the stack's own) */
        ck_assert_int_eq(get(hw, LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES), -1);
        llmmem_hardware_free(hw);
    }
}
END_TEST

/* The one multiple of 16 KiB that prints as `text` ("10922.67") when divided by `unit` (2^20 for
 * the logs that print MiB, 1e6 for those that print MB) and printed with two decimals, as
 * ggml-metal.m prints recommendedMaxWorkingSetSize; fails unless there is exactly one. */
static int64_t working_set_from_print(const char *text, int64_t unit)
{
    double printed = strtod(text, NULL);
    const int64_t page = 16384;
    int64_t lo = (int64_t)((printed - 0.01) * (double)unit) / page;
    int64_t hi = (int64_t)((printed + 0.01) * (double)unit) / page + 1;
    int64_t found = 0, count = 0;
    for (int64_t k = lo; k <= hi; k++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.2f", (double)(k * page) / (double)unit);
        if (strcmp(buf, text) == 0) {
            found = k * page;
            count++;
        }
    }
    ck_assert_msg(count == 1, "%s: %lld multiples of 16 KiB print as it", text, (long long)count);
    return found;
}

#define MIB_UNIT 1048576LL
#define MB_UNIT 1000000LL

/* Apple Silicon: memory_bytes is recommendedMaxWorkingSetSize as the cited log printed it, the RAM
 * is host memory, the device is its Metal GPU on unified memory with no CUDA context. */
static const struct {
    const char *name;
    const char *printed;  /* the log's text */
    int64_t unit;         /* what the log divided by */
    const char *printed2; /* a second print of the same value in the same or a second log, or NULL */
    int64_t unit2;
    uint64_t ram_gb;      /* "16GB" */
    uint64_t mb_s;        /* Apple's bandwidth, decimal MB/s */
} apple[] = {
    /* magicoder#19: 10922.67 MiB; llama.cpp#4495: 11453.25 MB */
    {"m1-16gb", "10922.67", MIB_UNIT, "11453.25", MB_UNIT, 16, 68250},
    /* llama.cpp#2011 (July 2023, ggml-metal.m divided by 2^20) */
    {"m1-max-32gb", "21845.34", MIB_UNIT, NULL, 0, 32, 400000},
    /* llama.cpp#1870: 49152.00 MiB; llama-cpp-rs#64: 51539.61 MB */
    {"m1-max-64gb", "49152.00", MIB_UNIT, "51539.61", MB_UNIT, 64, 400000},
    /* ollama#434 (Aug 2023, divided by 2^20) */
    {"m2-max-32gb", "21845.34", MIB_UNIT, NULL, 0, 32, 400000},
    /* llama.cpp#3213 (Sept 2023, divided by 2^20; the log's locale wrote 73728,00) */
    {"m2-max-96gb", "73728.00", MIB_UNIT, NULL, 0, 96, 400000},
    /* llama.cpp#11083 (Jan 2025, divided by 1e6) */
    {"m4-16gb", "11453.25", MB_UNIT, NULL, 0, 16, 120000},
};

START_TEST(test_apple_silicon)
{
    for (size_t i = 0; i < sizeof apple / sizeof apple[0]; i++) {
        int64_t expected = working_set_from_print(apple[i].printed, apple[i].unit);
        if (apple[i].printed2)
            ck_assert_int_eq(working_set_from_print(apple[i].printed2, apple[i].unit2), expected);
        llmmem_hardware *hw = gpu(apple[i].name);
        ck_assert_msg(get(hw, LLMMEM_KEY_MEMORY_BYTES) == expected, "%s: %lld bytes, the log gives %lld",
                      apple[i].name, (long long)get(hw, LLMMEM_KEY_MEMORY_BYTES), (long long)expected);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_HOST_MEMORY_BYTES), (int64_t)(apple[i].ram_gb * GIB));
        ck_assert_int_lt(get(hw, LLMMEM_KEY_MEMORY_BYTES), get(hw, LLMMEM_KEY_HOST_MEMORY_BYTES));
        ck_assert_int_eq(get(hw, LLMMEM_KEY_MEMORY_BANDWIDTH), (int64_t)apple[i].mb_s * 1000000);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_UNIFIED_MEMORY), 1);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_BACKEND), LLMMEM_BACKEND_METAL);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_RUNTIME_OVERHEAD_BYTES), 0);
        ck_assert_int_eq(get(hw, LLMMEM_KEY_DEVICES_PER_NODE), 1);
        llmmem_hardware_free(hw);
    }
    /* The figures the comments quote: 699051, 1398102, 3145728, 4718592 pages of 16 KiB. */
    ck_assert_int_eq(working_set_from_print("10922.67", MIB_UNIT), 699051LL * 16384);
    ck_assert_int_eq(working_set_from_print("21845.34", MIB_UNIT), 1398102LL * 16384);
    ck_assert_int_eq(working_set_from_print("49152.00", MIB_UNIT), 48 * (int64_t)GIB);
    ck_assert_int_eq(working_set_from_print("73728.00", MIB_UNIT), 72 * (int64_t)GIB);
}
END_TEST

/* With no CUDA context and the working set as capacity, an Apple preset's capacity is its
 * memory_bytes whole, and a 7B model in bf16 (about 13.5 GB of weights) does not fit a 16 GB Mac. */
START_TEST(test_apple_capacity)
{
    llmmem_hardware *hw = gpu("m1-16gb");
    llmmem_model *m = NULL;
    llmmem_strategy *s = NULL;
    llmmem_report *r = NULL;
    ck_assert_ok(llmmem_model_from_preset(&m, "llama-2-7b"));
    ck_assert_ok(llmmem_strategy_new(&s));
    ck_assert_ok(llmmem_report_new(&r));
    ck_assert_ok(llmmem_estimate(r, m, hw, s));
    ck_assert_uint_eq(llmmem_report_bytes(r, LLMMEM_COMPONENT_RUNTIME_OVERHEAD), 0);
    ck_assert_uint_eq(llmmem_report_capacity_bytes(r), 11453251584ULL);
    ck_assert_int_eq(llmmem_report_fits(r), 0);
    llmmem_report_free(r);
    llmmem_strategy_free(s);
    llmmem_model_free(m);
    llmmem_hardware_free(hw);
}
END_TEST

/* Every preset of this file is listed by index, once. */
START_TEST(test_listed_once)
{
    size_t n = llmmem_hardware_preset_count();
    for (size_t i = 0; i < sizeof discrete / sizeof discrete[0]; i++) {
        size_t seen = 0;
        for (size_t j = 0; j < n; j++)
            seen += strcmp(llmmem_hardware_preset_name(j), discrete[i].name) == 0;
        ck_assert_msg(seen == 1, "%s listed %zu times", discrete[i].name, seen);
    }
    for (size_t i = 0; i < sizeof apple / sizeof apple[0]; i++) {
        size_t seen = 0;
        for (size_t j = 0; j < n; j++)
            seen += strcmp(llmmem_hardware_preset_name(j), apple[i].name) == 0;
        ck_assert_msg(seen == 1, "%s listed %zu times", apple[i].name, seen);
    }
}
END_TEST

static Suite *catalog_local_suite(void)
{
    Suite *s = suite_create("hardware_local");
    TCase *tc = tcase_create("keys");
    tcase_add_test(tc, test_keys_pinned_and_defaults);
    tcase_add_test(tc, test_backend_names);
    tcase_add_test(tc, test_datacenter_backends);
    suite_add_tcase(s, tc);
    TCase *presets = tcase_create("presets");
    tcase_add_test(presets, test_discrete_gpus);
    tcase_add_test(presets, test_apple_silicon);
    tcase_add_test(presets, test_apple_capacity);
    tcase_add_test(presets, test_listed_once);
    suite_add_tcase(s, presets);
    return s;
}

int main(void)
{
    return run_suite(catalog_local_suite());
}
