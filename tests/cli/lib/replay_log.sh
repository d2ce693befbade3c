# tests/cli/lib/replay_log.sh, sourced by the replay CLI tests: what they read from a replay's output.
#   log_of JSON   the :::MLLOG log that `tta replay --format json` (in file JSON) names
#   accs LOG      its eval_accuracy values, in order, on one line
#   losses LOG    its tta_train_loss values, in order, on one line
log_of() { grep -o '"log": "[^"]*"' "$1" | cut -d'"' -f4; }
accs() { grep -o '"key": "eval_accuracy", "value": [0-9.e-]*' "$1" | tr '\n' ' '; }
losses() { grep -o '"key": "tta_train_loss", "value": [0-9.e-]*' "$1" | tr '\n' ' '; }
