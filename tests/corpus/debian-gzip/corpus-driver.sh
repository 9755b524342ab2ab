#!/bin/sh
# Test driver written for the sandbox-bash corpus; it is not part of gzip.
# Runs the gzip shell scripts copied here on small files it creates in ./fx.
# SH names the shell that runs each script under test (default: bash on PATH).
SH=${SH:-bash}
rm -rf fx && mkdir fx && cd fx || exit 1
printf 'alpha\nbeta\ngamma\n' > one
printf 'alpha\nBETA\ngamma\ndelta\n' > two
gzip -k one two
echo "== zcat"; $SH ../zcat one.gz; echo "rc=$?"
echo "== zgrep -n -i"; $SH ../zgrep -n -i beta one.gz two.gz; echo "rc=$?"
echo "== zgrep -c no match"; $SH ../zgrep -c nomatch one.gz; echo "rc=$?"
echo "== zgrep -e -l"; $SH ../zgrep -l -e delta one.gz two.gz; echo "rc=$?"
echo "== zgrep stdin"; $SH ../zgrep gamma < one.gz; echo "rc=$?"
echo "== zdiff"; $SH ../zdiff one.gz two.gz; echo "rc=$?"
echo "== zcmp"; $SH ../zcmp one.gz one; echo "rc=$?"
echo "== gunzip -t"; $SH ../gunzip -t one.gz; echo "rc=$?"
echo "== gunzip"; cp one.gz three.gz; $SH ../gunzip three.gz; echo "rc=$?"; cat three
echo "== zforce"; gzip -c one > four; $SH ../zforce four; echo "rc=$?"; ls four*
echo "== zmore"; $SH ../zmore one.gz < /dev/null | cat; echo "rc=$?"
echo "== gzexe"
printf '#!/bin/sh\necho "hello from a gzexe program: $*"\n' > prog
chmod +x prog
$SH ../gzexe prog; echo "rc=$?"
./prog a b; echo "rc=$?"
$SH ./prog c; echo "rc=$?"
$SH ../gzexe -d prog; echo "rc=$?"
./prog d; echo "rc=$?"
