/* SPDX-License-Identifier: MIT */
#include "repo-url.h"

#include "config.h"
#include "util.h"

const char *rd_repo_base(const struct rd_config *c)
{
    return c && c->mirror ? c->mirror : RD_AMD_REPO_BASE;
}

bool rd_url_under_mirror(const char *mirror, const char *url)
{
    if (!mirror || !url)
        return false;
    const char *rest = startswith(url, mirror);
    return rest && (*rest == '/' || *rest == 0);
}

char *rd_repo_canonical(const char *mirror, const char *url)
{
    if (!rd_url_under_mirror(mirror, url))
        return xstrdup_or_null(url);
    return xasprintf("%s%s", RD_AMD_REPO_BASE, url + strlen(mirror));
}

char *rd_repo_on_base(const struct rd_config *c, const char *url)
{
    const char *rest = url ? startswith(url, RD_AMD_REPO_BASE) : NULL;
    if (!c || !c->mirror || !rest || (*rest != '/' && *rest != 0))
        return xstrdup_or_null(url);
    return xasprintf("%s%s", c->mirror, rest);
}

const char *rd_repo_path_of(const char *mirror, const char *url)
{
    const char *p = NULL;
    if (rd_url_under_mirror(mirror, url))
        p = url + strlen(mirror);
    else {
        const char *h = url ? strstr(url, "://") : NULL;
        if (!h)
            return NULL;
        h += 3;
        size_t n = strlen(RD_AMD_REPO_HOST);
        if (strncmp(h, RD_AMD_REPO_HOST, n) != 0 || (h[n] != '/' && h[n] != 0))
            return NULL;
        p = h + n;
    }
    while (*p == '/')
        p++;
    return p;
}
