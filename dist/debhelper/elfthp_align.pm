#!/usr/bin/perl
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# The debhelper sequence addon of elfthp-align: "dh $@ --with elfthp-align",
# or Build-Depends: dh-sequence-elfthp-align.  dh_elfthp_align runs after
# dh_strip (and dh_dwz, which runs before dh_strip), the last commands that
# rewrite ELF files, and before dh_makeshlibs, dh_shlibdeps and dh_md5sums:
# the packaged bytes and their md5sums are the aligned ones.

use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_after('dh_strip', 'dh_elfthp_align');

1;
