# How long each phase of a command took, for tools/run-tests and
# tools/check-chapter, which source this file from the repository's root.
# Sourcing it starts the clock; end_phase NAME records the phase that just
# ended; report_phases (run at exit: trap report_phases EXIT) prints each
# phase's wall-clock seconds and the processor-seconds the whole machine was
# busy meanwhile (from /proc/stat, so another job on the machine counts too).

phases=()
phases_started=$(date +%s.%N)
busy_seconds() {  # the machine's busy time so far: user, nice, system, irq, softirq and steal ticks
  awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.1f", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat
}
phases_busy=$(busy_seconds)
phase_started=$phases_started
phase_busy=$phases_busy
phase_line() {  # name, start, end, busy at start, busy at end
  awk -v name="$1" -v t0="$2" -v t1="$3" -v b0="$4" -v b1="$5" \
    'BEGIN { printf "  %-44s %8.1f s %10.1f s", name, t1 - t0, b1 - b0 }'
}
end_phase() {  # records the phase that just ended under the name $1
  local now busy
  now=$(date +%s.%N)
  busy=$(busy_seconds)
  phases+=("$(phase_line "$1" "$phase_started" "$now" "$phase_busy" "$busy")")
  phase_started=$now
  phase_busy=$busy
}
report_phases() {
  echo
  echo "Phases                                           wall   processor"
  printf '%s\n' "${phases[@]}"
  phase_line "in all" "$phases_started" "$(date +%s.%N)" "$phases_busy" "$(busy_seconds)"
  echo
}
