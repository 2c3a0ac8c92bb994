// Package judge is what an evaluator gate says and hears: the input an evaluator (a headless
// model command such as `claude -p --model haiku`) reads on its standard input — the
// condition, the task, the agent's last message, the gates' results, the diffstat and patch
// of the snapshot against the loop's base, bounded to [MaxInput] bytes with every cut marked
// — and the verdict it answers, a JSON object {"met": bool, "impossible": bool, "reason":
// "…"} found tolerantly in whatever it printed (the last such object, inside code fences or
// not, or inside Claude Code's `-p --output-format json` wrapper).
//
// It owns the evaluator's prompt and the verdict parser. It may not import the loop engine
// or anything above it: the engine runs the evaluator and hands its output here, so this
// package knows neither gates, nor loops, nor git.
package judge
