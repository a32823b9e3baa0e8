/* SPDX-License-Identifier: MIT */
/* What text output needs, whoever prints it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Human size: 25753026560 -> "24 GiB". */
void rd_format_bytes(uint64_t bytes, char *buf, size_t size);
