#!/usr/bin/env bash
# Regenerates the reports and screenshots of results/report-screens/ (issue 26) from the
# committed CSVs; the commands that measured the CSVs are in README.md next to this script.
# Usage: bash results/report-screens/make-screens.sh [path/to/pagebench]
set -euo pipefail
B=${1:-$(swift build --show-bin-path)/pagebench}
D=results/report-screens
"$B" report $D/limits.csv --output $D/limits.html --title "What do limits 10 to 250 cost with filter category=0?"
"$B" report $D/knee.csv --output $D/knee.html --title "Where is the knee? (200 µs service time, 16 pagers)"
"$B" report $D/stages.csv --timeseries $D/stages-timeseries.csv --output $D/stages.html --title "Rate stages 50→400→50 drains/s"
for name in limits knee stages; do
    for width in 1600 800; do
        height=$([ "$width" = 1600 ] && echo 2200 || echo 3400)
        chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=$width,$height \
            --screenshot="$PWD/$D/$name-$width.png" "file://$PWD/$D/$name.html" >/dev/null 2>&1
    done
done
