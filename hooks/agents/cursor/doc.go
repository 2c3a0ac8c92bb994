// Package cursor is git-loop's support for Cursor's agent: its stop hook, whose answer's
// followup_message is sent as the next user message, and its afterAgentResponse hook, which
// keeps the agent's answer for the stop (the stop payload carries none). No real Cursor runs
// in the tests (it needs a sign-in); its payloads are the documented ones.
package cursor
