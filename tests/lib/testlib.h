/* SPDX-License-Identifier: MIT */
/* Helpers the C tests share (GLib tests): one copy each. */
#pragma once

#include <stdint.h>
#include "facts.h"

/* Adds a KFD node property, as the kfd probe reads it from sysfs. */
void rd_test_kv_add(rd_kfd_node *n, const char *key, uint64_t value);
/* Writes text to dir/rel, making the directories on the way; asserts. */
void rd_test_write_file(const char *dir, const char *rel, const char *text);
