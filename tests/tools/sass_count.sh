#!/usr/bin/env bash
# tools/sass_count.sh (make ch05-sass, make ch07-sass) on a canned
# `cuobjdump -sass` listing, printed by a stand-in cuobjdump: no CUDA Toolkit
# needed. Two kernels; the expected tables are counted by hand from the
# listing below:
#   _Z6forcesPK4bodyP4vec3i (c++filt: forces(body const*, vec3*, int)):
#     9 instructions (the header lines and the encodings' second lines are
#     not instructions); FP64 3 (DFMA, DSETP, F2F.F32.F64); MUFU 2 (RSQ, RCP);
#     FSETP 1 (DSETP is not FSETP);
#   render: 6 instructions; FP64 0; MUFU 0; FSETP 1.
# ch05's FP64 pattern is the one its chapter.mk passes (CH05_SASS_FP64), so
# a wrong pattern there fails here too. Then what must fail does: bad
# arguments (exit 2, the usage), a failing cuobjdump, a listing without a
# kernel, a pattern awk cannot read.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v c++filt > /dev/null || { echo "no c++filt (binutils): the demangled table cannot be checked"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
root=$1
tool=$root/tools/sass_count.sh
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1

cat > listing.txt <<'EOF'

Fatbin elf code:
================
arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

	code for sm_90
		Function : _Z6forcesPK4bodyP4vec3i
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                       /* 0x00000a00ff017b82 */
                                                                                /* 0x000fe20000000800 */
        /*0010*/                   DFMA R2, R4, R6, R2 ;
        /*0020*/                   MUFU.RSQ R5, R5 ;
        /*0030*/                   FSETP.GEU.AND P0, PT, R5, RZ, PT ;
        /*0040*/                   DSETP.GT.AND P1, PT, R2, RZ, PT ;
        /*0050*/                   F2F.F32.F64 R7, R2 ;
        /*0060*/               @P0 BRA 0x90 ;
        /*0070*/                   MUFU.RCP R8, R5 ;
        /*0080*/                   EXIT ;
		..........


		Function : render
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   FADD R1, R2, R3 ;
        /*0020*/                   FFMA R1, R1, R2, R3 ;
        /*0030*/                   FSETP.GT.AND P0, PT, R1, RZ, PT ;
        /*0040*/                   EXIT ;
        /*0050*/                   BRA 0x50 ;
		..........



Fatbin ptx code:
================
arch = sm_90
EOF
# The stand-in: `cuobjdump -sass OBJECT` prints the listing for any object;
# missing.o fails as cuobjdump does, empty.o has no kernel.
cat > cuobjdump <<EOF
#!/usr/bin/env bash
[ "\$1" = -sass ] || { echo "stand-in cuobjdump: want -sass, got \$1" >&2; exit 9; }
case \$(basename "\$2") in
missing.o) echo "cuobjdump fatal   : Could not open input file '\$2'" >&2; exit 1 ;;
empty.o) echo "cuobjdump info    : File '\$2' does not contain device code" ;;
*) cat "$scratch/listing.txt" ;;
esac
EOF
chmod +x cuobjdump

# ch05's shape: an object column, its FP64 pattern, every instruction.
# (a rule of the test's own prints it; the $(...) is make's, in single quotes)
# shellcheck disable=SC2016
print_fp64='sass_count_fp64: ; @printf "%s\n" '\''$(CH05_SASS_FP64)'\'
fp64=$(make -s --no-print-directory -C "$root" --eval "$print_fp64" sass_count_fp64) ||
    fail "make could not print ch05's CH05_SASS_FP64"
[ -n "$fp64" ] || fail "ch05's chapter.mk has no CH05_SASS_FP64"
cat > want05.md <<'EOF'
| object | kernel (stage flags) | FP64 instructions | instructions |
|---|---|---:|---:|
| render.o | _Z6forcesPK4bodyP4vec3i | 3 | 9 |
| render.o | render | 0 | 6 |
| render_fast.o | _Z6forcesPK4bodyP4vec3i | 3 | 9 |
| render_fast.o | render | 0 | 6 |
EOF
bash "$tool" --object-column --kernel-title 'kernel (stage flags)' ./cuobjdump "FP64 instructions=$fp64" \
    'instructions=.' -- build/render.o build/render_fast.o > got05.md 2> err.txt ||
    fail "ch05's table: exit $?: $(cat err.txt)"
diff want05.md got05.md > /dev/null || fail "ch05's table (FP64 pattern $fp64), want then got: $(diff want05.md got05.md)"

# ch07's shape: kernels demangled, every instruction, MUFU, FSETP.
cat > want07.md <<'EOF'
| kernel (demangled by c++filt where present) | SASS instructions | MUFU | FSETP |
|---|---:|---:|---:|
| `forces(body const*, vec3*, int)` | 9 | 2 | 1 |
| `render` | 6 | 0 | 1 |
EOF
bash "$tool" --demangle --kernel-title 'kernel (demangled by c++filt where present)' ./cuobjdump \
    'SASS instructions=.' 'MUFU=MUFU' 'FSETP=FSETP' -- gpu.o > got07.md 2> err.txt ||
    fail "ch07's table: exit $?: $(cat err.txt)"
diff want07.md got07.md > /dev/null || fail "ch07's table, want then got: $(diff want07.md got07.md)"

# expect_failure STATUS WHAT ARGS...: the tool exits STATUS, prints nothing
# on stdout (not even a partial table) and says WHAT (a fixed string) on stderr.
expect_failure() {
    local want=$1 what=$2 rc
    shift 2
    bash "$tool" "$@" > out.txt 2> err.txt
    rc=$?
    [ "$rc" = "$want" ] || fail "sass_count.sh $*: exit $rc, want $want; stderr: $(cat err.txt)"
    [ ! -s out.txt ] || fail "sass_count.sh $*: exit $rc, yet a table on stdout: $(cat out.txt)"
    grep -qF -- "$what" err.txt || fail "sass_count.sh $*: stderr does not say '$what': $(cat err.txt)"
}
expect_failure 2 "usage: tools/sass_count.sh" ./cuobjdump 'MUFU=MUFU' gpu.o
expect_failure 2 "is not TITLE=ERE" ./cuobjdump MUFU -- gpu.o
expect_failure 2 "no TITLE=ERE column" ./cuobjdump -- gpu.o
expect_failure 2 "no OBJECT" ./cuobjdump 'MUFU=MUFU' --
expect_failure 2 "unknown option --objects" --objects ./cuobjdump 'MUFU=MUFU' -- gpu.o
expect_failure 1 "./cuobjdump -sass missing.o failed" ./cuobjdump 'MUFU=MUFU' -- gpu.o missing.o
expect_failure 1 "empty.o: no kernel" ./cuobjdump 'MUFU=MUFU' -- empty.o
expect_failure 1 "awk failed" ./cuobjdump 'bad=MUFU(' -- gpu.o
expect_failure 2 "a TITLE with '|'" ./cuobjdump 'a|b=MUFU' -- gpu.o
# a '|' in the pattern (alternation) is the pattern's business, '=' after it or not
bash "$tool" ./cuobjdump 'either=MUFU|X=Y' -- gpu.o > out.txt 2> err.txt || fail "a pattern 'MUFU|X=Y' refused: $(cat err.txt)"
echo "sass_count: ch05's and ch07's tables as counted by hand; bad arguments, a failing cuobjdump, no kernel and a bad pattern refused"
