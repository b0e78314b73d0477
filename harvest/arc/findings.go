package arc

import (
	"errors"
	"fmt"

	arcdoc "tidings/arc"
	"tidings/harvest"
)

// Codes of the findings the ARC source reports, stable for scripts.
const (
	// CodeInvalid: an ARC sitemap fails validation as a whole.
	CodeInvalid = "arc-invalid"
	// CodePageInvalid: one page entry of an ARC sitemap fails
	// validation, and is skipped.
	CodePageInvalid = "arc-page-invalid"
)

// Explain says what an ARC sitemap that failed validation gets wrong, and
// how to fix it; it makes Source a harvest.Explainer.
func (Source) Explain(err error) (what, fix string, ok bool) {
	var ae *arcdoc.Error
	if !errors.As(err, &ae) {
		return "", "", false
	}
	return "the ARC sitemap is not valid: " + ae.Msg,
		"Correct it so that it validates against the ARC sitemap schema (Appendix E); until it does, tidings cannot follow it.", true
}

// invalid is the finding of the ARC sitemap at u, which failed
// validation with err.
func invalid(u string, err error) harvest.Finding {
	f := harvest.Finding{Code: CodeInvalid, Document: u, Blocking: true}
	f.Message, f.Fix, _ = Source{}.Explain(err)
	var ae *arcdoc.Error
	if errors.As(err, &ae) && ae.Line > 0 {
		f.Where = fmt.Sprintf("line %d", ae.Line)
	}
	if f.Message == "" {
		f.Message = "the ARC sitemap is not valid: " + trimARC(err)
		f.Fix = "Correct it so that it validates against the ARC sitemap schema (Appendix E); until it does, tidings cannot follow it."
	}
	return f
}

// pageInvalid is the finding of a page entry of the sitemap at src that
// failed validation.
func pageInvalid(src string, s arcdoc.Skipped) harvest.Finding {
	return harvest.Finding{Code: CodePageInvalid, Document: src, Where: fmt.Sprintf("page %d", s.Index),
		Message: "the page entry is not valid: " + s.String(),
		Fix:     "Correct the entry so that it validates against the ARC sitemap schema; tidings skips it until then."}
}
