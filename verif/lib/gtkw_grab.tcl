# GTKWave script (gtkwave --script): report which traces of the loaded save file resolved to
# signals of the dump, then grab a screenshot of the window to $env(IBCC_GRAB_PNG) and quit.
set total [gtkwave::getTotalNumTraces]
for {set i 0} {$i < $total} {incr i} {
  puts "trace: [gtkwave::getTraceNameFromIndex $i]"
}
puts "traces_total: $total"
# A run without a mismatch: show all of it. With one, the save file already centres the
# view on the marker.
if {[gtkwave::getMarker] <= 0} {
  gtkwave::/Time/Zoom/Zoom_Best_Fit
}
gtkwave::/File/Grab_To_File $env(IBCC_GRAB_PNG)
gtkwave::/File/Quit
