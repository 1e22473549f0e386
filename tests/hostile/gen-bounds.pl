#!/usr/bin/perl
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# gen-bounds.pl OUTDIR - ELF files that reach the fixed bounds of the tool.
#
# Each is an x86_64 ELF64 ET_DYN built from scratch (an ELF header, program
# headers, no section headers); none is meant to run.  Perl, not python3:
# it starts in milliseconds.
#
#   many-loads         the PT_LOAD of the headers, then 70 read-only PT_LOADs
#                      of 2 MiB, each holding one full 2 MiB window, each
#                      4 KiB short of congruent (p_offset = p_vaddr - 4 KiB
#                      modulo 2 MiB), p_align 0x800 (below the 4 KiB page).
#                      More findings than the 64 the tool stores: --check 70
#                      (offset-incongruent), --check --compat --page-size 4k
#                      70 (page-align), 16k 141 (70 page-offset, 71
#                      page-align).  Sparse: 142 MiB apparent, a few KiB on
#                      disk.
#   dyn-flags-past-cap a PT_DYNAMIC of 65536 DT_DEBUG entries (1 MiB: the
#                      most the reader reads of it), then DT_FLAGS_1 with
#                      DF_1_PIE, then DT_NULL.  Read whole, it would be a
#                      static-pie; read to the bound, a shared-library.
#   dyn-flags-at-cap   the same with 65535 DT_DEBUG: DT_FLAGS_1 is the last
#                      entry inside the bound, and the file a static-pie.
use strict;
use warnings;

@ARGV == 1 or die "usage: gen-bounds.pl OUTDIR\n";
my $out = $ARGV[0];
-d $out or mkdir $out or die "gen-bounds.pl: $out: $!\n";

my ($PT_LOAD, $PT_DYNAMIC, $PF_R, $PF_W) = (1, 2, 4, 2);
my $MiB = 1 << 20;

# ehdr(PHNUM): an ELF64 LE x86_64 ET_DYN header, program headers at 64.
sub ehdr {
    my ($phnum) = @_;
    return pack("a4 C C C C C x7 v v V Q< Q< Q< V v v v v v v",
        "\x7fELF", 2, 1, 1, 0, 0,    # class 64, LSB, version, SysV ABI
        3, 62, 1,                    # ET_DYN, EM_X86_64, EV_CURRENT
        0, 64, 0,                    # e_entry, e_phoff, e_shoff
        0, 64, 56, $phnum, 64, 0, 0);
}

# phdr(TYPE, FLAGS, OFFSET, VADDR, FILESZ, MEMSZ, ALIGN)
sub phdr {
    my ($type, $flags, $off, $vaddr, $filesz, $memsz, $align) = @_;
    return pack("V V Q< Q< Q< Q< Q< Q<", $type, $flags, $off, $vaddr, $vaddr,
        $filesz, $memsz, $align);
}

# put(NAME, SIZE, [OFFSET, BYTES]...): the file, SIZE bytes, holes between.
sub put {
    my ($name, $size, @pieces) = @_;
    my $path = "$out/$name";
    open(my $fh, '>:raw', $path) or die "gen-bounds.pl: $path: $!\n";
    while (@pieces) {
        my ($at, $bytes) = splice(@pieces, 0, 2);
        seek($fh, $at, 0) or die "gen-bounds.pl: seek: $!\n";
        print $fh $bytes or die "gen-bounds.pl: write: $!\n";
    }
    truncate($fh, $size) or die "gen-bounds.pl: truncate: $!\n";
    close($fh) or die "gen-bounds.pl: $path: $!\n";
    chmod 0755, $path;
}

# --- many-loads -----------------------------------------------------------
{
    my $n = 70;
    my $ph = phdr($PT_LOAD, $PF_R, 0, 0, 0x1000, 0x1000, 0x1000);
    for my $k (1 .. $n) {
        # Segment k: vaddr k * 2 MiB, its file bytes 4 KiB before that
        # modulo 2 MiB, end to end in the file and in memory.
        $ph .= phdr($PT_LOAD, $PF_R, $k * 2 * $MiB - 0x1000, $k * 2 * $MiB,
            2 * $MiB, 2 * $MiB, 0x800);
    }
    put("many-loads", ($n + 1) * 2 * $MiB - 0x1000, 0, ehdr($n + 1) . $ph);
}

# --- dyn-flags-past-cap, dyn-flags-at-cap -----------------------------------
for my $case (["dyn-flags-past-cap", 65536], ["dyn-flags-at-cap", 65535]) {
    my ($name, $ndebug) = @$case;
    my $dyn = pack("q< Q<", 21, 0) x $ndebug            # DT_DEBUG
        . pack("q< Q<", 0x6ffffffb, 0x08000000)          # DT_FLAGS_1, DF_1_PIE
        . pack("q< Q<", 0, 0);                           # DT_NULL
    my $size = 0x1000 + length($dyn);
    my $ph = phdr($PT_LOAD, $PF_R | $PF_W, 0, 0, $size, $size, 0x1000)
        . phdr($PT_DYNAMIC, $PF_R | $PF_W, 0x1000, 0x1000, length($dyn),
            length($dyn), 8);
    put($name, $size, 0, ehdr(2) . $ph, 0x1000, $dyn);
}
exit 0;
