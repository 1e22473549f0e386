/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/* big.h - the one function of libbig. */
#ifndef BIG_H
#define BIG_H
long big_text_kib(void);
#endif
