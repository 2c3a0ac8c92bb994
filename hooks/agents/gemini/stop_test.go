package gemini

import "testing"

// TestGeminiThisTurn: after a deny, Gemini CLI's prompt_response repeats the earlier answers;
// only what follows the response judged last is this turn's.
func TestGeminiThisTurn(t *testing.T) {
	first := "All fixed. <promise>DONE</promise>"
	msg, known, judged := thisTurn(ptr(first), nil)
	if msg != first || !known || judged == nil || judged.Len != len(first) {
		t.Fatalf("first stop: %q, %v, %+v", msg, known, judged)
	}
	msg, _, judged2 := thisTurn(ptr(first+"\nFixed the subtraction."), judged)
	if msg != "Fixed the subtraction." {
		t.Fatalf("second stop judged %q, want only the new answer", msg)
	}
	if msg, known, _ := thisTurn(nil, judged2); msg != "" || !known {
		t.Fatalf("null response: %q, known %v; want no message this turn", msg, known)
	}
	if msg, _, _ := thisTurn(ptr("A new session's answer"), judged2); msg != "A new session's answer" {
		t.Fatalf("a response that does not repeat the judged one: %q", msg)
	}
}

func ptr(s string) *string { return &s }
