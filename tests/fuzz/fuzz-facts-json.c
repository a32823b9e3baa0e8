/* SPDX-License-Identifier: MIT */
#include "facts-json.h"
#include "fuzz.h"
#include "util.h"

static char *render(const rd_facts *f)
{
    json_object *j = rd_facts_to_json(f);
    char *s = xstrdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
    json_object_put(j);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    rd_facts f;
    char *err = NULL;
    if (rd_facts_from_json_string(text, &f, &err) == 0) {
        /* whatever was accepted must write out and read back the same */
        char *first = render(&f);
        rd_facts back;
        char *err2 = NULL;
        if (rd_facts_from_json_string(first, &back, &err2) != 0)
            abort();
        char *second = render(&back);
        if (!streq(first, second))
            abort();
        free(second);
        rd_facts_free(&back);
        free(first);
        rd_facts_free(&f);
    } else if (!err) {
        abort();
    }
    free(err);
    free(text);
    return 0;
}
