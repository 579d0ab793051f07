#!/usr/bin/env bash
# The one test command (npm test): installs what a fresh machine lacks, then lint, typecheck,
# build, unit tests, package-shape checks, the npm consumer check (tools/pack-check/consumers.mjs)
# and integration tests (real OVS, root) through nx.
# Integration suites run in three lanes side by side: the lab's (its own OVS nodes, API server and
# controller per file), every other package's, one suite after another in each lane, and the
# images' (`npm run images` on this checkout, then the images under podman and the lab's demo on
# them; SWITCHYARD_TEST_IMAGES=0 leaves it out) followed by two lab files. Every suite makes its
# own netns, OVS instances, sockets and ports, so the lanes share nothing; a suite's output is
# printed whole when it ends. SWITCHYARD_TEST_LANES=1 runs them one after another. The images lane
# costs about 280 CPU seconds; CI-F (2026-12-01) left the integration stage 17 % idle without it
# (docs/development.md).
# Prints each stage as it starts (`::: [elapsed] stage`), the time each stage and each integration
# suite took, the 10 slowest test files, and a final "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false FORCE_COLOR=0 NO_COLOR=1
# The run's logs (test.log, each suite's output, the stage times) stay in $work for reading a red
# run; the runs before the last five are removed (each directory is ours: named for this script).
work=$(mktemp -d /tmp/switchyard-test.XXXXXX)
ls -dt /tmp/switchyard-test.* 2>/dev/null | tail -n +6 | xargs -r rm -rf --
log=$work/test.log
times=$work/stages
export SWITCHYARD_TEST_TIMES=$work/files
: > "$times"
: > "$SWITCHYARD_TEST_TIMES"
failed_stage=""

# CPU seconds per stage and suite: where the kernel offers cgroup v1's cpuacct controller and we
# may write to it (root on these machines), each stage and suite runs in a cgroup of its own under
# one made for this run, so its CPU time counts every process it started, daemons included (OVS,
# the lab's supervisor). A process still in a suite's cgroup when the suite ends is one it left
# running: the count is printed beside its time. Elsewhere the column says "-".
cg_base=""
if [ -w /sys/fs/cgroup/cpuacct ] && mkdir "/sys/fs/cgroup/cpuacct/switchyard-test.$$" 2>/dev/null; then
  cg_base=/sys/fs/cgroup/cpuacct/switchyard-test.$$
fi
# The machine's CPU time, busy and all, from /proc/stat (jiffies): the share of the two cores the
# integration stage kept busy is printed at the end.
cpu_jiffies() { awk '/^cpu / {busy = $2 + $3 + $4 + $7 + $8 + $9; print busy, busy + $5 + $6}' /proc/stat; }

# Runs "$@" (a command or a function of this script) in the cgroup $1, when there is one; the
# caller reads the cgroup with cg_done.
cg_run() {
  local cg=$1; shift
  (
    if [ -n "$cg" ]; then echo "$BASHPID" > "$cg/cgroup.procs"; fi
    "$@"
  )
}

# A cgroup's CPU seconds and, after a "+", how many processes it still holds; removes it when empty.
cg_done() {
  local cg=$1 left
  [ -z "$cg" ] && { echo "-"; return; }
  left=$(wc -l < "$cg/cgroup.procs")
  printf '%s' "$(( $(cat "$cg/cpuacct.usage") / 1000000000 ))"
  [ "$left" != 0 ] && printf '+%s left' "$left"
  echo
  [ "$left" = 0 ] && rmdir "$cg"
}

# A new cgroup's path under this run's, or nothing.
cg_new() {
  [ -n "$cg_base" ] && mkdir "$cg_base/$1" 2>/dev/null && echo "$cg_base/$1"
}

# Runs a stage with its output shown as it comes; records its time, CPU and verdict.
stage() {
  local name=$1; shift
  local t0=$SECONDS rc cg
  cg=$(cg_new "stage-$SECONDS-$RANDOM")
  printf '::: [%5s s] %s\n' "$SECONDS" "$name"
  if cg_run "$cg" "$@" 2>&1 | tee -a "$log"; then rc=0; else rc=${PIPESTATUS[0]}; fi
  record "$name" "$((SECONDS - t0))" "$rc" "$(cg_done "$cg")"
}

record() {
  printf '%-64s %5ss %8s  %s\n' "$1" "$2" "${4:--}" "$([ "$3" = 0 ] && echo ok || echo FAILED)" >> "$times"
  if [ "$3" != 0 ] && [ -z "$failed_stage" ]; then failed_stage=$1; fi
}

# One lane of integration suites: each suite's output goes to a file and is printed whole when the
# suite ends (under a lock, so two lanes never interleave); its time and exit code go to $work/lane-*.
# A suite is a project, `project|jest arguments` for part of a project's files, or `project#script`
# for another of its scripts than test:integration.
lane() {
  local id=$1; shift
  local spec p args name t0 rc out script cg cpu
  for spec in "$@"; do
    script=test:integration
    if [ "${spec#*#}" != "$spec" ]; then script=${spec#*#}; spec=${spec%%#*}; fi
    p=${spec%%|*}
    args=()
    name="integration: $p"
    [ "$script" != test:integration ] && name="$script: $p"
    if [ "$spec" != "$p" ]; then
      read -r -a args <<< "${spec#*|}"
      name="$name (${spec#*|})"
    fi
    t0=$SECONDS
    out=$work/suite-$id-${p//[^a-zA-Z0-9]/_}-$t0.log
    printf '::: [%5s s] %s (lane %s, output when it ends)\n' "$SECONDS" "$name" "$id"
    # The build stage has built every package: the suite's own script, not nx (two nx processes at
    # once would share its cache and workspace database).
    cg=$(cg_new "lane$id-$t0-${p//[^a-zA-Z0-9]/_}")
    cg_run "$cg" npm run --silent "$script" -w "$p" -- "${args[@]}" > "$out" 2>&1
    rc=$?
    cpu=$(cg_done "$cg")
    {
      flock 9
      printf '::: [%5s s] %s ended after %s s (%s)\n' "$SECONDS" "$name" "$((SECONDS - t0))" "$([ $rc = 0 ] && echo ok || echo FAILED)"
      tee -a "$log" < "$out"
    } 9> "$work/print.lock"
    printf '%s\t%s\t%s\t%s\n' "$name" "$((SECONDS - t0))" "$rc" "$cpu" >> "$work/lane-$id"
  done
}

# Runs commands (each one string, split on spaces) at the same time; prints each one's output whole
# when all have ended, and fails when any failed.
side_by_side() {
  local i=0 rc=0 cmd
  local -a pids=() outs=()
  for cmd in "$@"; do
    outs[i]=$work/side-$i.log
    # shellcheck disable=SC2086 # the command's words are meant to split
    $cmd > "${outs[i]}" 2>&1 &
    pids[i]=$!
    i=$((i + 1))
  done
  for i in "${!pids[@]}"; do
    wait "${pids[i]}" || rc=1
    cat "${outs[i]}"
  done
  return $rc
}

stage "system packages" bash scripts/ensure-system.sh
[ -z "$failed_stage" ] && stage "npm ci (skipped when node_modules is from this lock file)" bash scripts/ensure-node-modules.sh
if [ -z "$failed_stage" ]; then
  # One ESLint run for every project, then each project's dependency check (what each project's lint
  # script does), beside one TypeScript program for the whole workspace (each project's own
  # typecheck target re-checks the libraries it imports): each is one busy process, a core each.
  stage "lint, import cycles (type-only imports included) and typecheck, side by side" \
    side_by_side "node scripts/lint-workspace.mjs" "node scripts/import-cycles.mjs" "node scripts/typecheck-workspace.mjs"

  stage "build" npx nx run-many -t build --outputStyle=static
  # Every package is built from this tree: `switchyard-lab up` and the tests that run built programs
  # skip their own (cached, but a few seconds of nx each, about 25 times) build step.
  [ -z "$failed_stage" ] && export SWITCHYARD_PREBUILT=1
  # One jest for every project's unit tests, a worker per core (per-project jest runs: a start each, and
  # the longest file holds up its project): 111 s here against 147 s through nx.
  stage "unit tests" npx jest -c jest.unit.config.cjs --maxWorkers="$(nproc)"
  # Every package with a test:pack script and the consumer check on one pack and one install of
  # every publishable package (package-shape.mjs); beside it nx release's dry run.
  stage "package shape (pack, ESM+CJS, publint, attw), npm consumers (README programs from the tarballs, types, LICENSE) and release dry run (nx release, independent versions), side by side" \
    side_by_side "node tools/pack-check/package-shape.mjs $(grep -l '"test:pack"' packages/*/package.json | xargs -n1 dirname | tr '\n' ' ')" "npx nx release --dry-run --skip-publish"
  projects=$(npx nx show projects --with-target test:integration | sort)
  # kube-api's suite (about 55 s) runs in lane 1 after the lab's files: in CI-C (2026-11-30) lane 2
  # ended at 1,779 s of npm test and lane 1 at 1,682 s.
  lane1_after='@switchyard/kube-api'
  # multicluster's suite (about 170 s) runs in lane 3 after the lab files there: in CI-A
  # (2026-12-02 15:28) lane 3 ended at 1,281 s of npm test, lane 1 at 1,866 s and lane 2 (the
  # agent's 939 s, then the rest) at 1,975 s.
  lane3_after='@switchyard/multicluster'
  rest=$(echo "$projects" | grep -vx -e '@switchyard/lab' -e "$lane1_after" -e "$lane3_after" || true)
  # The lab's files are the longest suites: most run in lane 1; these (by path) run in lane 3 after
  # the images, so the lanes end together. Every lab file runs in exactly one lane.
  # ipv6-only.test.ts and dual-stack.test.ts (each its own 2-node lab, 150 s together in CI-F), and
  # modes.test.ts (159 s at stop 47, where lane 1 ended at 1,688 s of npm test, lane 2 at about
  # 1,500 s and lane 3 at 890 s). CI-H ran egress.test.ts there too:
  # the integration stage took 1,667 s instead of 1,401, the machine 94 % busy instead of 85 %
  # (three labs at once cost more CPU in every suite), so no more than this moved.
  lab_lane2='test-integration/(ipv6-only|dual-stack|modes)[.]test[.]ts$'
  t0=$SECONDS
  read -r busy0 all0 < <(cpu_jiffies)
  printf '::: [%5s s] integration suites\n' "$SECONDS"
  # shellcheck disable=SC2086 # word splitting of the project list is intended
  # The images lane: the lab's podman test builds the images first (a fresh clone has none; the
  # build is mostly downloads, dpkg and compression, so it fills the cores the lab lane leaves
  # idle while it waits on probes), then runs the demo on them; the images' own test reuses them.
  images=()
  [ "${SWITCHYARD_TEST_IMAGES:-1}" = 1 ] && images=("@switchyard/lab#test:image" "@switchyard/images#test:image")
  if [ "${SWITCHYARD_TEST_LANES:-2}" = 1 ]; then
    lane 1 @switchyard/lab $lane1_after $rest $lane3_after "${images[@]}"
  else
    # Lane 3: the images, then the lab files of lab_lane2 (CI-F, without the images: lane 2 with
    # them ended at 1,597 s of npm test, lane 1 at 1,557 s).
    lane 1 "@switchyard/lab|--testPathIgnorePatterns $lab_lane2" $lane1_after &
    lane 2 $rest &
    lane 3 "${images[@]}" "@switchyard/lab|--testPathPatterns $lab_lane2" $lane3_after &
    wait
  fi
  while IFS=$'\t' read -r name secs rc cpu; do record "$name" "$secs" "$rc" "$cpu"; done < <(sort "$work"/lane-*)
  read -r busy1 all1 < <(cpu_jiffies)
  printf '%-64s %5ss %8s  %s\n' "integration suites, wall time (lanes side by side)" "$((SECONDS - t0))" "" \
    "machine busy $(( 100 * (busy1 - busy0) / (all1 - all0 > 0 ? all1 - all0 : 1) )) %" >> "$times"
fi

[ -n "$cg_base" ] && rmdir "$cg_base" 2>/dev/null
echo
echo "== time per stage (wall seconds, CPU seconds of its processes) =="
cat "$times"
echo
echo "== 10 slowest test files =="
sort -t$'\t' -k1,1 -rn "$SWITCHYARD_TEST_TIMES" | head -10 | awk -F'\t' '{printf "%7.1f s  %-22s %s (%d passed, %d failed)\n", $1, $2, $3, $4, $5}'
plain=$(sed -E 's/\x1b\[[0-9;]*m//g' "$log")
passed=$(echo "$plain" | grep -aE '^Tests: ' | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failedn=$(echo "$plain" | grep -aE '^Tests: ' | grep -oE '[0-9]+ failed' | awk '{s+=$1} END {print s+0}')
fails=$(echo "$plain" | grep -aE '^ *(✕|● )' | grep -v '● Console' | sort -u | head -40)
if [ -n "$fails" ]; then
  echo
  echo "== failed tests =="
  echo "$fails"
fi
echo
if [ -n "$failed_stage" ]; then
  echo "first failing stage: $failed_stage"
  echo "logs: $work"
  echo "$passed passed, $((failedn > 0 ? failedn : 1)) failed"
  exit 1
fi
echo "logs: $work"
echo "$passed passed, $failedn failed"
[ "$failedn" = 0 ]
