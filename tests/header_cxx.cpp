// The public header from C++: extern "C" linkage, no C-only constructs.
#include <llmmem/llmmem.h>

int main()
{
    llmmem_report *r = nullptr;
    if (llmmem_report_new(&r) != LLMMEM_OK)
        return 1;
    llmmem_report_free(r);
    return llmmem_version_number() == LLMMEM_VERSION_NUMBER ? 0 : 1;
}
