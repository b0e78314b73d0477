package scp

import (
	"errors"
	"fmt"

	"tidings/harvest"
	"tidings/scpbridge"
)

// CodeInvalid names an SCP snapshot or delta that fails validation,
// stable for scripts.
const CodeInvalid = "scp-invalid"

// fixInvalid is what the owner of an SCP file that fails validation is
// to do.
const fixInvalid = "Correct it (and whatever writes it) so that every line is a page as the SCP specification describes; " +
	"tidings rejects the whole file until then, and none of its changes reach the feed."

// Explain says what an SCP file that failed validation gets wrong, and
// how to fix it; it makes Source a harvest.Explainer.
func (Source) Explain(err error) (what, fix string, ok bool) {
	var se *scpbridge.Error
	if !errors.As(err, &se) {
		return "", "", false
	}
	return "the SCP file is not valid: " + se.Msg, fixInvalid, true
}

// invalid is the finding of the SCP file at u, the collection's role
// ("snapshot", "delta"), which failed validation with err.
func invalid(role, u string, err error) harvest.Finding {
	f := harvest.Finding{Code: CodeInvalid, Document: u, Blocking: true, Fix: fixInvalid,
		Message: fmt.Sprintf("the SCP %s is not valid: %s", role, err)}
	var se *scpbridge.Error
	if errors.As(err, &se) {
		f.Message = fmt.Sprintf("the SCP %s is not valid: %s", role, se.Msg)
		if se.Line > 0 {
			f.Where = fmt.Sprintf("line %d", se.Line)
		}
	}
	return f
}
