/*
 * consumer — a program outside libllmmem's build, compiled with pkg-config alone:
 *
 *   cc -o consumer consumer.c $(pkg-config --cflags --libs llmmem)
 *   ./consumer llama-3.1-70b h100-sxm-80gb
 *
 * With the library installed in a prefix of your own, point pkg-config (and the loader) there:
 *
 *   PKG_CONFIG_PATH=$PREFIX/lib/x86_64-linux-gnu/pkgconfig cc ... && LD_LIBRARY_PATH=... ./consumer
 *
 * It estimates inference memory of a model preset on a GPU preset and prints each component.
 * Exit status: 0 when the estimate was printed, 2 for bad input, 1 when the header it was built
 * with and the library it loaded disagree, or the report contradicts itself.
 */
#include <llmmem/llmmem.h>

#include <inttypes.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    const char *model_name = argc > 1 ? argv[1] : "llama-3.1-8b";
    const char *gpu_name = argc > 2 ? argv[2] : "h100-sxm-80gb";
    llmmem_model *model = NULL;
    llmmem_hardware *hw = NULL;
    llmmem_strategy *strategy = NULL;
    llmmem_report *report = NULL;
    llmmem_status st;
    int rc = 0;

    /* The header this program was compiled with must describe the library it runs with. */
    if (llmmem_version_number() != LLMMEM_VERSION_NUMBER) {
        fprintf(stderr, "consumer: built with libllmmem %s, loaded %s\n", LLMMEM_VERSION_STRING,
                llmmem_version_string());
        return 1;
    }
    if ((st = llmmem_model_from_preset(&model, model_name)) != LLMMEM_OK ||
        (st = llmmem_hardware_from_preset(&hw, gpu_name)) != LLMMEM_OK ||
        (st = llmmem_strategy_new(&strategy)) != LLMMEM_OK || (st = llmmem_report_new(&report)) != LLMMEM_OK ||
        (st = llmmem_estimate(report, model, hw, strategy)) != LLMMEM_OK) {
        fprintf(stderr, "consumer: %s (%s)\n", llmmem_last_message(), llmmem_status_str(st));
        rc = 2;
        goto done;
    }

    printf("libllmmem %s: %s on %s, inference\n", llmmem_version_string(), model_name, gpu_name);
    uint64_t sum = 0;
    for (size_t i = 0; i < llmmem_component_count(); i++) {
        uint64_t bytes = llmmem_report_bytes(report, (llmmem_component)i);
        sum += bytes;
        if (bytes > 0)
            printf("  %-18s %16" PRIu64 " bytes\n", llmmem_component_name((llmmem_component)i), bytes);
    }
    uint64_t total = llmmem_report_total_bytes(report), capacity = llmmem_report_capacity_bytes(report);
    printf("  %-18s %16" PRIu64 " bytes of %" PRIu64 ": %s\n", "total", total, capacity,
           llmmem_report_fits(report) ? "fits" : "does not fit");

    /* The report's own arithmetic: the total sums the components, and fits means total <= capacity. */
    if (sum != total || llmmem_report_fits(report) != (total <= capacity)) {
        fprintf(stderr, "consumer: the report contradicts itself\n");
        rc = 1;
    }

done:
    llmmem_report_free(report);
    llmmem_strategy_free(strategy);
    llmmem_hardware_free(hw);
    llmmem_model_free(model);
    return rc;
}
