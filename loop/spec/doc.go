// Package spec scores a loop's task as a specification before it starts: how clearly it
// states success, its scope, its constraints, how to verify it and when to stop, with
// hints for the weakest dimensions and the shape the score suggests (tool, colleague or
// intent). The score is advice; it never refuses or pauses a loop.
//
// It reads text and nothing else: no loops, no git. The engine imports it to record the
// score when a loop starts.
package spec
