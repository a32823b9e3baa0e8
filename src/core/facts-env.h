/* SPDX-License-Identifier: MIT */
/* Facts: The environment variables that steer ROCm and where they are set. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One definition of a variable that steers ROCm. */
typedef struct {
    char *name;
    char *value;
    char *source; /* "process environment" or the file as on the host */
    int64_t line; /* 1-based line in source; 0 for the process environment */
} rd_env_var;

typedef struct {
    rd_env_var *vars; /* process environment first, then files in login order */
    size_t n_vars;
    char *user; /* whose ~/.profile and ~/.bashrc were read */
    char *home;
    char **files; /* every file that was read */
    char *error;  /* why the user's files were not read */
} rd_env_facts;
