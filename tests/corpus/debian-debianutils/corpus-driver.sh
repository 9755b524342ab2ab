#!/bin/sh
# Test driver written for the sandbox-bash corpus; it is not part of debianutils.
# Runs debianutils' which and savelog on files it creates in ./fx.
SH=${SH:-bash}
rm -rf fx && mkdir -p fx/bin && cd fx || exit 1
printf '#!/bin/sh\necho tool\n' > bin/corpus-tool
chmod +x bin/corpus-tool
echo "== which"; PATH="$PWD/bin:$PATH" $SH ../which corpus-tool | sed "s#$PWD#.#"; echo "rc=$?"
echo "== which -a sh"; $SH ../which -a sh; echo "rc=$?"
echo "== which missing"; $SH ../which corpus-missing; echo "rc=$?"
echo "== savelog"
for i in 1 2 3 4; do
  printf 'line %s\n' "$i" > app.log
  $SH ../savelog -c 3 -n -q app.log; echo "rc=$?"
done
ls app.log* | sort
gzip -cd app.log.1.gz 2>/dev/null || cat app.log.1
cat app.log.0
echo "== savelog -t -l"; printf 'x\n' > other.log; $SH ../savelog -l -t -c 2 other.log | sed "s/ at .*/ at DATE./"; ls other.log* | sort
