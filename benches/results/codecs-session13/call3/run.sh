#!/usr/bin/env bash
# Session 13, call 3: generated CUDA source of the plane-chunk compress and a failing test
set -u
xz -dc .gpu/kt.xz > /tmp/kt && chmod +x /tmp/kt
R=$OUT/r; mkdir -p $R
CUBECL_DEBUG_LOG=$R/cubecl.log timeout 60 /tmp/kt --test-threads 1 zvc_all_zero_and_no_zero_multi_tile > $R/t.txt 2>&1
echo rc=$?; ls -la $R; grep -c "" $R/cubecl.log
grep -n "zvc_compress" $R/cubecl.log | head -5
tar -C $OUT -czf $OUT/results.tar.gz r
