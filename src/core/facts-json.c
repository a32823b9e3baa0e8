/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include "build-config.h"
#include "json-util.h"
#include "util.h"

/* clang-format off */
/* The schema tables keep one field a line. */
static const rd_field os_fields[] = {
    F(rd_os_facts, id, RD_FT_STR),
    F(rd_os_facts, id_like, RD_FT_STR),
    F(rd_os_facts, version_id, RD_FT_STR),
    F(rd_os_facts, version_codename, RD_FT_STR),
    F(rd_os_facts, pretty_name, RD_FT_STR),
    F(rd_os_facts, family, RD_FT_STR),
    F(rd_os_facts, os_release_error, RD_FT_STR),
    F(rd_os_facts, kernel_release, RD_FT_STR),
    F(rd_os_facts, proc_version, RD_FT_STR),
    F(rd_os_facts, virtualization, RD_FT_STR),
    F(rd_os_facts, container, RD_FT_STR),
    F(rd_os_facts, container_evidence, RD_FT_STR),
    F(rd_os_facts, wsl, RD_FT_BOOL),
    F(rd_os_facts, wsl_evidence, RD_FT_STR),
};
static SCHEMA(os_schema, rd_os_facts, os_fields);

static const rd_field pci_dev_fields[] = {
    F(rd_pci_device, address, RD_FT_STR),
    FR(rd_pci_device, vendor_id, 0, 0xffff),
    FR(rd_pci_device, device_id, 0, 0xffff),
    FR(rd_pci_device, subsystem_vendor_id, 0, 0xffff),
    FR(rd_pci_device, subsystem_device_id, 0, 0xffff),
    FR(rd_pci_device, revision, 0, 0xff),
    FR(rd_pci_device, class_code, 0, 0xffffff),
    F(rd_pci_device, vendor_name, RD_FT_STR),
    F(rd_pci_device, device_name, RD_FT_STR),
    F(rd_pci_device, marketing_name, RD_FT_STR),
    F(rd_pci_device, driver, RD_FT_STR),
    F(rd_pci_device, parent, RD_FT_STR),
    F(rd_pci_device, children, RD_FT_STRV),
    F(rd_pci_device, display, RD_FT_BOOL),
    FR(rd_pci_device, pcie_type, -1, 15),
    F(rd_pci_device, caps_readable, RD_FT_BOOL),
    F(rd_pci_device, atomic_routing, RD_FT_BOOL),
    F(rd_pci_device, atomic_comp32, RD_FT_BOOL),
    F(rd_pci_device, atomic_comp64, RD_FT_BOOL),
    F(rd_pci_device, atomic_comp128, RD_FT_BOOL),
    F(rd_pci_device, atomic_requester, RD_FT_BOOL),
    F(rd_pci_device, atomic_egress_blocking, RD_FT_BOOL),
    F(rd_pci_device, current_link_speed, RD_FT_DOUBLE),
    F(rd_pci_device, max_link_speed, RD_FT_DOUBLE),
    FR(rd_pci_device, current_link_width, 0, 63),
    FR(rd_pci_device, max_link_width, 0, 63),
    FN(rd_pci_device, bar_sizes, RD_FT_U64V, n_bar_sizes),
    F(rd_pci_device, resizable_bar, RD_FT_BOOL),
    FR(rd_pci_device, numa_node, INT32_MIN, INT32_MAX),
};
static SCHEMA(pci_dev_schema, rd_pci_device, pci_dev_fields);

static const rd_field pci_fields[] = {
    FA(rd_pci_facts, devices, n_devices, pci_dev_schema),
    F(rd_pci_facts, error, RD_FT_STR),
};
static SCHEMA(pci_schema, rd_pci_facts, pci_fields);

static const rd_field drm_dev_fields[] = {
    F(rd_drm_device, pci_address, RD_FT_STR),
    F(rd_drm_device, card, RD_FT_STR),
    F(rd_drm_device, render, RD_FT_STR),
    F(rd_drm_device, render_minor, RD_FT_INT),
    F(rd_drm_device, driver, RD_FT_STR),
    F(rd_drm_device, product_name, RD_FT_STR),
    F(rd_drm_device, vram_total, RD_FT_U64),
    F(rd_drm_device, gtt_total, RD_FT_U64),
    F(rd_drm_device, unique_id, RD_FT_STR),
    F(rd_drm_device, gc_version, RD_FT_STR),
};
static SCHEMA(drm_dev_schema, rd_drm_device, drm_dev_fields);

static const rd_field drm_fields[] = {
    FA(rd_drm_facts, devices, n_devices, drm_dev_schema),
    F(rd_drm_facts, error, RD_FT_STR),
};
static SCHEMA(drm_schema, rd_drm_facts, drm_fields);

static const rd_field kfd_node_fields[] = {
    F(rd_kfd_node, node_id, RD_FT_INT),
    F(rd_kfd_node, name, RD_FT_STR),
    F(rd_kfd_node, gpu_id, RD_FT_INT),
    FN(rd_kfd_node, properties, RD_FT_KV, n_properties),
    F(rd_kfd_node, vram_bytes, RD_FT_U64),
    F(rd_kfd_node, error, RD_FT_STR),
};
static SCHEMA(kfd_node_schema, rd_kfd_node, kfd_node_fields);

static const rd_field kfd_fields[] = {
    F(rd_kfd_facts, present, RD_FT_BOOL),
    F(rd_kfd_facts, generation_id, RD_FT_INT),
    FA(rd_kfd_facts, nodes, n_nodes, kfd_node_schema),
    F(rd_kfd_facts, error, RD_FT_STR),
};
static SCHEMA(kfd_schema, rd_kfd_facts, kfd_fields);

static const rd_field param_fields[] = {
    F(rd_param, name, RD_FT_STR),
    F(rd_param, value, RD_FT_STR),
};
static SCHEMA(param_schema, rd_param, param_fields);

static const rd_field modprobe_fields[] = {
    F(rd_modprobe_line, file, RD_FT_STR),
    F(rd_modprobe_line, line, RD_FT_INT),
    F(rd_modprobe_line, directive, RD_FT_STR),
    F(rd_modprobe_line, module, RD_FT_STR),
    F(rd_modprobe_line, args, RD_FT_STR),
};
static SCHEMA(modprobe_schema, rd_modprobe_line, modprobe_fields);

static const rd_field kmsg_fields[] = {
    F(rd_kmsg_record, priority, RD_FT_INT),
    F(rd_kmsg_record, seq, RD_FT_U64),
    F(rd_kmsg_record, usec, RD_FT_U64),
    F(rd_kmsg_record, text, RD_FT_STR),
};
static SCHEMA(kmsg_schema, rd_kmsg_record, kmsg_fields);

static const rd_field driver_fields[] = {
    F(rd_driver_facts, module_present, RD_FT_BOOL),
    F(rd_driver_facts, initstate, RD_FT_STR),
    F(rd_driver_facts, builtin, RD_FT_BOOL),
    F(rd_driver_facts, version, RD_FT_STR),
    F(rd_driver_facts, srcversion, RD_FT_STR),
    FA(rd_driver_facts, parameters, n_parameters, param_schema),
    F(rd_driver_facts, radeon_loaded, RD_FT_BOOL),
    FA(rd_driver_facts, modprobe, n_modprobe, modprobe_schema),
    F(rd_driver_facts, modprobe_shadowed, RD_FT_STRV),
    F(rd_driver_facts, modprobe_error, RD_FT_STR),
    F(rd_driver_facts, cmdline, RD_FT_STR),
    F(rd_driver_facts, cmdline_error, RD_FT_STR),
    FA(rd_driver_facts, kmsg, n_kmsg, kmsg_schema),
    F(rd_driver_facts, kmsg_error, RD_FT_STR),
};
static SCHEMA(driver_schema, rd_driver_facts, driver_fields);

static const rd_field acl_fields[] = {
    F(rd_acl_entry, tag, RD_FT_STR),
    F(rd_acl_entry, id, RD_FT_INT),
    F(rd_acl_entry, perm, RD_FT_INT),
};
static SCHEMA(acl_schema, rd_acl_entry, acl_fields);

static const rd_field dev_node_fields[] = {
    F(rd_dev_node, path, RD_FT_STR),
    F(rd_dev_node, role, RD_FT_STR),
    F(rd_dev_node, exists, RD_FT_BOOL),
    F(rd_dev_node, mode, RD_FT_INT),
    F(rd_dev_node, uid, RD_FT_INT),
    F(rd_dev_node, gid, RD_FT_INT),
    F(rd_dev_node, group, RD_FT_STR),
    FA(rd_dev_node, acl, n_acl, acl_schema),
    F(rd_dev_node, error, RD_FT_STR),
};
static SCHEMA(dev_node_schema, rd_dev_node, dev_node_fields);

static const rd_field user_fields[] = {
    F(rd_user_facts, name, RD_FT_STR),
    F(rd_user_facts, uid, RD_FT_INT),
    F(rd_user_facts, gid, RD_FT_INT),
    F(rd_user_facts, source, RD_FT_STR),
    FN(rd_user_facts, groups, RD_FT_I64V, n_groups),
    F(rd_user_facts, session_known, RD_FT_BOOL),
    FN(rd_user_facts, session_groups, RD_FT_I64V, n_session_groups),
    F(rd_user_facts, error, RD_FT_STR),
};
static SCHEMA(user_schema, rd_user_facts, user_fields);

static const rd_field access_fields[] = {
    FA(rd_access_facts, nodes, n_nodes, dev_node_schema),
    FA(rd_access_facts, users, n_users, user_schema),
    F(rd_access_facts, not_checked, RD_FT_STR),
};
static SCHEMA(access_schema, rd_access_facts, access_fields);

static const rd_field unreadable_fields[] = {
    F(rd_unreadable_file, path, RD_FT_STR),
    F(rd_unreadable_file, error, RD_FT_STR),
    F(rd_unreadable_file, unchecked, RD_FT_STR),
};
static SCHEMA(unreadable_schema, rd_unreadable_file, unreadable_fields);

static const rd_field facts_fields[] = {
    F(rd_facts, schema, RD_FT_STR),
    F(rd_facts, tool_version, RD_FT_STR),
    F(rd_facts, root, RD_FT_STR),
    FS(rd_facts, os, os_schema),
    FS(rd_facts, pci, pci_schema),
    FS(rd_facts, drm, drm_schema),
    FS(rd_facts, kfd, kfd_schema),
    FS(rd_facts, driver, driver_schema),
    FS(rd_facts, access, access_schema),
    FS(rd_facts, rocm, rd_rocm_facts_schema),
    FS(rd_facts, apt, rd_apt_facts_schema),
    FS(rd_facts, boot, rd_boot_facts_schema),
    FS(rd_facts, env, rd_env_facts_schema),
    FS(rd_facts, container_env, rd_container_facts_schema),
    FS(rd_facts, tuning, rd_tuning_facts_schema),
    FS(rd_facts, torch, rd_torch_facts_schema),
    FS(rd_facts, runtime, rd_runtime_facts_schema),
    FS(rd_facts, health, rd_health_facts_schema),
    FA(rd_facts, unreadable, n_unreadable, unreadable_schema),
    FS(rd_facts, rpm, rd_rpm_facts_schema),
    FS(rd_facts, repos, rd_repos_facts_schema),
    FS(rd_facts, kernel_devel, rd_kernel_devel_facts_schema),
    FS(rd_facts, wheels, rd_wheel_facts_schema),
    FS(rd_facts, slurm, rd_slurm_facts_schema),
};
SCHEMA(rd_facts_schema, rd_facts, facts_fields);
/* clang-format on */

#define AT(p, off, type) ((type *)((char *)(p) + (off)))
#define CAT(p, off, type) ((const type *)((const char *)(p) + (off)))

json_object *rd_struct_to_json(const rd_schema *s, const void *p)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < s->n_fields; i++) {
        const rd_field *fd = &s->fields[i];
        json_object *v = NULL;
        size_t n = fd->count_offset ? *CAT(p, fd->count_offset, size_t) : 0;
        switch (fd->type) {
        case RD_FT_STR: {
            const char *str = *CAT(p, fd->offset, char *);
            v = str ? json_object_new_string(str) : NULL;
            break;
        }
        case RD_FT_BOOL: v = json_object_new_boolean(*CAT(p, fd->offset, bool)); break;
        case RD_FT_INT: v = json_object_new_int64(*CAT(p, fd->offset, int64_t)); break;
        case RD_FT_U64: v = json_object_new_uint64(*CAT(p, fd->offset, uint64_t)); break;
        case RD_FT_DOUBLE: v = json_object_new_double(*CAT(p, fd->offset, double)); break;
        case RD_FT_STRV: {
            char *const *sv = *(char **const *)((const char *)p + fd->offset);
            v = json_object_new_array();
            for (size_t k = 0; sv && sv[k]; k++)
                json_object_array_add(v, json_object_new_string(sv[k]));
            break;
        }
        case RD_FT_I64V: {
            const int64_t *a = *CAT(p, fd->offset, int64_t *);
            v = rd_json_new_array(n);
            for (size_t k = 0; k < n; k++)
                json_object_array_add(v, json_object_new_int64(a[k]));
            break;
        }
        case RD_FT_U64V: {
            const uint64_t *a = *CAT(p, fd->offset, uint64_t *);
            v = rd_json_new_array(n);
            for (size_t k = 0; k < n; k++)
                json_object_array_add(v, json_object_new_uint64(a[k]));
            break;
        }
        case RD_FT_KV: {
            const rd_kv *a = *CAT(p, fd->offset, rd_kv *);
            v = json_object_new_object();
            /* a repeated key keeps its first value, as rd_kfd_prop() reads it */
            for (size_t k = 0; k < n; k++)
                if (!json_object_object_get_ex(v, a[k].key, NULL))
                    json_object_object_add(v, a[k].key, json_object_new_uint64(a[k].value));
            break;
        }
        case RD_FT_OBJ: v = rd_struct_to_json(fd->sub, CAT(p, fd->offset, char)); break;
        case RD_FT_ARR: {
            const char *a = *CAT(p, fd->offset, char *);
            v = rd_json_new_array(n);
            for (size_t k = 0; k < n; k++)
                json_object_array_add(v, rd_struct_to_json(fd->sub, a + k * fd->sub->size));
            break;
        }
        }
        json_object_object_add(o, fd->name, v);
    }
    return o;
}

static int type_error(char **ret_error, const char *path, const char *name, const char *what)
{
    *ret_error = xasprintf("%s%s%s: expected %s", path, *path ? "." : "", name, what);
    return -EINVAL;
}

static bool get_u64(json_object *v, uint64_t *ret)
{
    if (json_object_get_type(v) != json_type_int)
        return false;
    /* json-c keeps values above INT64_MAX as unsigned; negative ones are not ours */
    errno = 0;
    int64_t s = json_object_get_int64(v);
    if (s < 0)
        return false;
    *ret = json_object_get_uint64(v);
    return errno == 0;
}

/* The readers of one field's value v into the struct at p; each returns
 * 0, or -EINVAL with the error naming path.field. */

static int int_from_json(const rd_field *fd, void *p, json_object *v, const char *path, char **ret_error)
{
    if (!json_object_is_type(v, json_type_int))
        return type_error(ret_error, path, fd->name, "an integer");
    errno = 0;
    int64_t i = json_object_get_int64(v);
    /* json-c clamps values above INT64_MAX instead of failing */
    if (errno || (i == INT64_MAX && json_object_get_uint64(v) > INT64_MAX))
        return type_error(ret_error, path, fd->name, "an integer in range");
    *AT(p, fd->offset, int64_t) = i;
    if (fd->ranged && (i < fd->min || i > fd->max)) {
        _cleanup_free_ char *what =
            xasprintf("an integer from %" PRId64 " to %" PRId64 ", not %" PRId64, fd->min, fd->max, i);
        return type_error(ret_error, path, fd->name, what);
    }
    return 0;
}

static int strv_from_json(const rd_field *fd, void *p, json_object *v, const char *path, char **ret_error)
{
    if (!json_object_is_type(v, json_type_array))
        return type_error(ret_error, path, fd->name, "an array of strings");
    char ***sv = AT(p, fd->offset, char **);
    size_t n = json_object_array_length(v);
    for (size_t k = 0; k < n; k++) {
        json_object *e = json_object_array_get_idx(v, k);
        if (!json_object_is_type(e, json_type_string))
            return type_error(ret_error, path, fd->name, "an array of strings");
        *sv = strv_push(*sv, xstrdup(json_object_get_string(e)));
    }
    return 0;
}

/* RD_FT_I64V and RD_FT_U64V: both element types are 8 bytes wide. */
static int ints_from_json(const rd_field *fd, void *p, json_object *v, const char *path, char **ret_error)
{
    if (!json_object_is_type(v, json_type_array))
        return type_error(ret_error, path, fd->name, "an array of integers");
    size_t n = json_object_array_length(v);
    uint64_t *a = xcalloc(n, sizeof(uint64_t));
    *AT(p, fd->offset, uint64_t *) = a;
    *AT(p, fd->count_offset, size_t) = n;
    for (size_t k = 0; k < n; k++) {
        json_object *e = json_object_array_get_idx(v, k);
        if (fd->type == RD_FT_U64V) {
            if (!get_u64(e, &a[k]))
                return type_error(ret_error, path, fd->name, "an array of unsigned integers");
        } else {
            if (!json_object_is_type(e, json_type_int))
                return type_error(ret_error, path, fd->name, "an array of integers");
            ((int64_t *)a)[k] = json_object_get_int64(e);
        }
    }
    return 0;
}

static int kv_from_json(const rd_field *fd, void *p, json_object *v, const char *path, char **ret_error)
{
    if (!json_object_is_type(v, json_type_object))
        return type_error(ret_error, path, fd->name, "an object of unsigned integers");
    rd_kv **a = AT(p, fd->offset, rd_kv *);
    size_t *n = AT(p, fd->count_offset, size_t);
    json_object_object_foreach (v, key, val) {
        uint64_t u;
        if (!get_u64(val, &u)) {
            _cleanup_free_ char *sub = xasprintf("%s.%s", fd->name, key);
            return type_error(ret_error, path, sub, "an unsigned integer");
        }
        rd_kv *kv = ARRAY_APPEND(*a, *n);
        kv->key = xstrdup(key);
        kv->value = u;
    }
    return 0;
}

static int arr_from_json(const rd_field *fd, void *p, json_object *v, const char *path, char **ret_error)
{
    if (!json_object_is_type(v, json_type_array))
        return type_error(ret_error, path, fd->name, "an array of objects");
    size_t n = json_object_array_length(v);
    char *a = xcalloc(n, fd->sub->size);
    *AT(p, fd->offset, char *) = a;
    *AT(p, fd->count_offset, size_t) = n;
    for (size_t k = 0; k < n; k++) {
        _cleanup_free_ char *sub = xasprintf("%s%s%s[%zu]", path, *path ? "." : "", fd->name, k);
        int r = rd_struct_from_json(fd->sub, a + k * fd->sub->size, json_object_array_get_idx(v, k), sub, ret_error);
        if (r < 0)
            return r;
    }
    return 0;
}

static int field_from_json(const rd_field *fd, void *p, json_object *v, const char *path, char **ret_error)
{
    switch (fd->type) {
    case RD_FT_STR:
        if (!v)
            return 0;
        if (!json_object_is_type(v, json_type_string))
            return type_error(ret_error, path, fd->name, "a string");
        *AT(p, fd->offset, char *) = xstrdup(json_object_get_string(v));
        return 0;
    case RD_FT_BOOL:
        if (!json_object_is_type(v, json_type_boolean))
            return type_error(ret_error, path, fd->name, "true or false");
        *AT(p, fd->offset, bool) = json_object_get_boolean(v);
        return 0;
    case RD_FT_INT: return int_from_json(fd, p, v, path, ret_error);
    case RD_FT_U64:
        if (!get_u64(v, AT(p, fd->offset, uint64_t)))
            return type_error(ret_error, path, fd->name, "an unsigned integer");
        return 0;
    case RD_FT_DOUBLE:
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
            return type_error(ret_error, path, fd->name, "a number");
        *AT(p, fd->offset, double) = json_object_get_double(v);
        if (!isfinite(*AT(p, fd->offset, double)))
            return type_error(ret_error, path, fd->name, "a finite number");
        return 0;
    case RD_FT_STRV: return strv_from_json(fd, p, v, path, ret_error);
    case RD_FT_I64V:
    case RD_FT_U64V: return ints_from_json(fd, p, v, path, ret_error);
    case RD_FT_KV: return kv_from_json(fd, p, v, path, ret_error);
    case RD_FT_OBJ: {
        _cleanup_free_ char *sub = xasprintf("%s%s%s", path, *path ? "." : "", fd->name);
        return rd_struct_from_json(fd->sub, AT(p, fd->offset, char), v, sub, ret_error);
    }
    case RD_FT_ARR: return arr_from_json(fd, p, v, path, ret_error);
    }
    return 0;
}

int rd_struct_from_json(const rd_schema *s, void *p, json_object *j, const char *path, char **ret_error)
{
    if (!json_object_is_type(j, json_type_object)) {
        *ret_error = xasprintf("%s: expected an object", *path ? path : "(top level)");
        return -EINVAL;
    }
    for (size_t i = 0; i < s->n_fields; i++) {
        const rd_field *fd = &s->fields[i];
        json_object *v;
        /* Missing keys keep their zero value: older facts files lack newer fields. */
        if (!json_object_object_get_ex(j, fd->name, &v))
            continue;
        int r = field_from_json(fd, p, v, path, ret_error);
        if (r < 0)
            return r;
    }
    return 0;
}

/* A facts struct is set up here and freed by its schema, rd_facts_schema
 * above. */
void rd_facts_init(rd_facts *f)
{
    memset(f, 0, sizeof(*f));
    f->schema = xstrdup(RD_FACTS_SCHEMA);
    f->tool_version = xstrdup(PACKAGE_VERSION);
}

void rd_facts_free(rd_facts *f)
{
    rd_struct_free(&rd_facts_schema, f);
}

json_object *rd_facts_to_json(const rd_facts *f)
{
    return rd_struct_to_json(&rd_facts_schema, f);
}

int rd_facts_from_json_string(const char *text, rd_facts *ret, char **ret_error)
{
    enum json_tokener_error jerr;
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok)
        abort();
    json_object *j = json_tokener_parse_ex(tok, text, (int)strlen(text));
    jerr = json_tokener_get_error(tok);
    if (j && jerr == json_tokener_success && tok->char_offset < (int)strlen(text)) {
        /* trailing bytes other than whitespace make the file suspect */
        const char *rest = text + tok->char_offset;
        while (*rest == ' ' || *rest == '\n' || *rest == '\t' || *rest == '\r')
            rest++;
        if (*rest) {
            *ret_error = xasprintf("trailing data after the JSON document at byte %d", tok->char_offset);
            json_object_put(j);
            json_tokener_free(tok);
            return -EINVAL;
        }
    }
    if (!j || jerr != json_tokener_success) {
        *ret_error =
            xasprintf("not valid JSON near byte %d: %s", tok->char_offset,
                      jerr == json_tokener_continue ? "unexpected end of file" : json_tokener_error_desc(jerr));
        json_object_put(j);
        json_tokener_free(tok);
        return -EINVAL;
    }
    json_tokener_free(tok);

    json_object *schema;
    if (!json_object_is_type(j, json_type_object) || !json_object_object_get_ex(j, "schema", &schema) ||
        !json_object_is_type(schema, json_type_string)) {
        *ret_error = xasprintf("not a rocm-doctor facts file (no \"schema\" key; expected \"%s\")", RD_FACTS_SCHEMA);
        json_object_put(j);
        return -EINVAL;
    }
    if (!streq(json_object_get_string(schema), RD_FACTS_SCHEMA)) {
        *ret_error = xasprintf("unsupported schema \"%s\" (this version reads \"%s\")", json_object_get_string(schema),
                               RD_FACTS_SCHEMA);
        json_object_put(j);
        return -EINVAL;
    }

    rd_facts f = { 0 };
    int r = rd_struct_from_json(&rd_facts_schema, &f, j, "", ret_error);
    json_object_put(j);
    if (r < 0) {
        rd_facts_free(&f);
        return r;
    }
    *ret = f;
    return 0;
}

int rd_facts_load(const char *path, rd_facts *ret, char **ret_error)
{
    _cleanup_free_ char *text = NULL;
    size_t size;
    int r = read_file_at(AT_FDCWD, path, 64 * 1024 * 1024, &text, &size);
    if (r < 0) {
        *ret_error = xasprintf("%s: %s", path, strerror(-r));
        return r;
    }
    if (strlen(text) != size) {
        *ret_error = xasprintf("%s: contains a NUL byte: not a JSON facts file", path);
        return -EINVAL;
    }
    _cleanup_free_ char *err = NULL;
    r = rd_facts_from_json_string(text, ret, &err);
    if (r < 0) {
        *ret_error = xasprintf("%s: %s", path, err);
        return r;
    }
    return 0;
}
