#!/bin/sh
# Test driver written for the sandbox-bash corpus; it is not part of xz-utils.
# Runs the xz-utils shell scripts copied here on small files it creates in ./fx.
# SH names the shell that runs each script under test (default: bash on PATH).
SH=${SH:-bash}
rm -rf fx && mkdir fx && cd fx || exit 1
printf 'alpha\nbeta\ngamma\n' > one
printf 'alpha\nBETA\ngamma\ndelta\n' > two
xz -k one two
gzip -k one
echo "== xzgrep -n -i"; $SH ../xzgrep -n -i beta one.xz two.xz; echo "rc=$?"
echo "== xzgrep -c no match"; $SH ../xzgrep -c nomatch one.xz; echo "rc=$?"
echo "== xzgrep on .gz"; $SH ../xzgrep -H gamma one.gz; echo "rc=$?"
echo "== xzgrep -l"; $SH ../xzgrep -l delta one.xz two.xz; echo "rc=$?"
echo "== xzdiff"; $SH ../xzdiff one.xz two.xz; echo "rc=$?"
echo "== xzdiff same"; $SH ../xzdiff one.xz one.gz; echo "rc=$?"
echo "== xzless"; $SH ../xzless one.xz < /dev/null | cat; echo "rc=$?"
echo "== xzmore"; $SH ../xzmore two.xz < /dev/null | cat; echo "rc=$?"
