#!/bin/sh
# Test driver written for the sandbox-bash corpus; it is not part of glibc.
# Runs glibc's ldd (a bash script) on a binary it builds with cc in ./fx (not on
# a system binary, which would need system read); load addresses are dropped
# because they change every run.
SH=${SH:-bash}
rm -rf fx && mkdir fx && cd fx || exit 1
printf 'int main(void) { return 0; }\n' > true.c
cc -o true-copy true.c || exit 1
echo "== ldd --version"; $SH ../ldd --version | head -n 1; echo "rc=$?"
echo "== ldd ./true-copy"; $SH ../ldd ./true-copy | sed 's/ (0x[0-9a-f]*)//'; echo "rc=$?"
echo "== ldd -v ./true-copy"; $SH ../ldd -v ./true-copy | sed 's/ (0x[0-9a-f]*)//' | head -n 12; echo "rc=$?"
echo "== ldd on a script"; printf '#!/bin/sh\n' > script; $SH ../ldd ./script; echo "rc=$?"
echo "== ldd missing"; $SH ../ldd ./missing; echo "rc=$?"
