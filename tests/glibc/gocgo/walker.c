/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/* cgo compiles the files of its package: the walker, without its main. */
#define WALKER_LIB
#include "../walker.c"
