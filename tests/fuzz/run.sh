#!/bin/sh
# run.sh TARGET SECONDS [VAR=value...] - one bounded run of build/fuzz/fuzz_TARGET (make
# test-fuzz): its committed seeds (tests/fuzz/corpus/TARGET, read only) plus what earlier
# runs found (build/fuzz/corpus_TARGET, where libFuzzer adds new inputs), for SECONDS
# seconds, -timeout=10 s an input (a hang is a finding). A finding is written to
# build/fuzz/TARGET-crash-* (replay it: build/fuzz/fuzz_TARGET FILE) and fails the run. The
# last line: how many inputs ran, with which engine (build/fuzz/engine: libfuzzer, or the
# replay fallback of tests/fuzz/replay.c).
target=$1 seconds=$2
shift 2
dir=build/fuzz
mkdir -p "$dir/corpus_$target"
case $target in msm_file) max_len=2048 ;; eip196) max_len=160 ;; eip2537) max_len=1300 ;; *) max_len=4096 ;; esac
out=$dir/$target.out
env ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 "$@" "./$dir/fuzz_$target" -max_total_time="$seconds" \
    -timeout=10 -max_len=$max_len -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/$target-" \
    "$dir/corpus_$target" "tests/fuzz/corpus/$target" > "$out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    tail -n 60 "$out"
    echo "fuzz_$target: FINDING (exit $rc): the input is in $dir/$target-*; full output: $out"
    exit $rc
fi
grep -a '^stat::' "$out"
units=$(grep -a 'stat::number_of_executed_units' "$out" | tail -n 1 | awk '{print $2}')
echo "fuzz_$target: ${units:-?} inputs in $seconds s ($(cat $dir/engine)), no finding"
