/* The public header on its own, as strict C11: it must compile with no other include and no
 * warning, and the loaded library must be the version the header describes. */
#include <llmmem/llmmem.h>

int main(void)
{
    llmmem_model *m = NULL;
    llmmem_model_free(m);
    if (llmmem_status_str(LLMMEM_ERR_OVERFLOW)[0] == '\0')
        return 1;
    return llmmem_version_number() == LLMMEM_VERSION_NUMBER ? 0 : 1;
}
