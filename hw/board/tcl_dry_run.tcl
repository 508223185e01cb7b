# Runs a Vivado batch script under plain tclsh with every Vivado command
# stubbed, to catch Tcl errors (syntax, unbalanced braces, unset variables,
# wrong argument counts of Tcl's own commands) where Vivado is not installed.
#
#   tclsh tcl_dry_run.tcl LOG_FILE SCRIPT.tcl [ARGS...]
#
# Each stubbed call is appended to LOG_FILE, one per line, so a test can
# check that the script reached the commands it must run. File-system
# writes (file copy/delete/mkdir) are logged, not done. Exits non-zero when
# the script fails or calls `exit` with a non-zero code.

lassign $argv log_path script
set argv [lrange $argv 2 end]
set argc [llength $argv]
set ::dry_log [open $log_path w]

proc ::dry_record {words} { puts $::dry_log [join $words " "] }

# Vivado commands: record the call, return something plausible.
proc unknown {cmd args} {
  ::dry_record [linsert $args 0 $cmd]
  switch -glob -- $cmd {
    get_property {
      if {[lindex $args 0] eq "PROGRESS"} { return "100%" }
      return "dry_run_[lindex $args 0]"
    }
    make_wrapper { return "dry_run_wrapper.v" }
    default { return "dry_run_$cmd" }
  }
}

rename file ::dry_tcl_file
proc file {sub args} {
  if {$sub in {copy delete mkdir rename}} {
    ::dry_record [linsert $args 0 file $sub]
    return ""
  }
  return [::dry_tcl_file $sub {*}$args]
}

rename glob ::dry_tcl_glob
proc glob {args} {
  set patterns [lsearch -all -inline -not -glob $args -*]
  ::dry_record [linsert $patterns 0 glob]
  return $patterns
}

rename exit ::dry_tcl_exit
proc exit {{code 0}} { return -code error "dry_run_exit $code" }

set status [catch {uplevel #0 [list source $script]} result]
close $::dry_log
if {$status != 0} {
  if {[regexp {^dry_run_exit (\d+)$} $result -> code]} {
    if {$code == 0} { ::dry_tcl_exit 0 }
    puts stderr "dry run: $script exited with $code"
    ::dry_tcl_exit $code
  }
  puts stderr "dry run: $script: $result"
  puts stderr $::errorInfo
  ::dry_tcl_exit 1
}
::dry_tcl_exit 0
