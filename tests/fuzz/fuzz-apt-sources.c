/* SPDX-License-Identifier: MIT */
/* apt's sources (one-line and deb822) and preferences: what the apt probe
 * reads from /etc/apt. The first byte picks the parser. Besides memory
 * errors: an entry must name the file it came from and a line inside it. */
#include "apt.h"
#include "facts.h"
#include "fuzz.h"
#include "util.h"

static size_t count_lines(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = fuzz_strndup(data + 1, size - 1);
    size_t lines = count_lines(text);
    rd_facts f;
    rd_facts_init(&f);
    switch (data[0] % 3) {
    case 0:
        rd_apt_parse_sources(text, "/etc/apt/sources.list", false, "repo.radeon.com", &f.apt.sources, &f.apt.n_sources);
        break;
    case 1:
        rd_apt_parse_sources(text, "/etc/apt/sources.list.d/rocm.sources", true, "repo.radeon.com", &f.apt.sources,
                             &f.apt.n_sources);
        break;
    default:
        rd_apt_parse_preferences(text, "/etc/apt/preferences.d/rocm-pin-600", "repo.radeon.com", &f.apt.pins,
                                 &f.apt.n_pins);
        break;
    }
    for (size_t i = 0; i < f.apt.n_sources; i++)
        if (!f.apt.sources[i].file || f.apt.sources[i].line < 1 || (size_t)f.apt.sources[i].line > lines)
            abort();
    for (size_t i = 0; i < f.apt.n_pins; i++)
        if (!f.apt.pins[i].file || f.apt.pins[i].line < 1 || (size_t)f.apt.pins[i].line > lines)
            abort();
    rd_facts_free(&f);
    free(text);
    return 0;
}
