package harvest

import "fmt"

// Finding is what a source found wrong with a site's change information,
// as a value: the site check shows it to the site's owner with its fix,
// and scripts read its code. A source says it in its own words; nothing
// outside the source reads its warnings' text.
type Finding struct {
	// Code names the finding, stable for scripts and tests
	// ("arc-page-invalid"); "" for a plain warning.
	Code string
	// Document is the address of the document it is in; "" for the site
	// as a whole.
	Document string
	// Where is the line, page or entry, when known ("line 4").
	Where string
	// Message says what is wrong, as a sentence for the site's owner; ""
	// when the finding only names what a warning is about (Code), for a
	// problem said elsewhere.
	Message string
	// Fix says what to do about it, as a sentence; "" for a finding that
	// is not a problem of its own.
	Fix string
	// Blocking: tidings cannot follow the document, or the site, until
	// it is fixed.
	Blocking bool
}

// IsProblem reports whether f is a problem of its own, with its fix.
func (f Finding) IsProblem() bool { return f.Message != "" && f.Fix != "" }

// CodeFutureDates names changes dated more than MaxClockSkew after the
// harvest, which it refuses.
const CodeFutureDates = "future-dates"

// Warning is one warning of a run, as its record says it (Text), with
// what it means to the site's owner when the source said (see
// CollectionRun.Find): a Finding that is a problem of its own, or only
// the Code of the problem that says the same.
type Warning struct {
	Text string
	Finding
}

// Explainer is a Source that says in a site owner's words what a failure
// of its own means (a document that fails validation, a harvest that
// failed): what is wrong and how to fix it. ok is false for a failure it
// has no words for, which the check then says as it is. The site check
// asks the source of each document rejected and collection failed.
type Explainer interface {
	Explain(err error) (what, fix string, ok bool)
}

// Explain asks the source registered under name to explain err.
func Explain(name string, err error) (what, fix string, ok bool) {
	if err == nil {
		return "", "", false
	}
	if e, isExplainer := protocols[name].(Explainer); isExplainer {
		return e.Explain(err)
	}
	return "", "", false
}

// Find adds a warning to the run's record, as Warn does, with f, what it
// means to the site's owner (see Warning).
func (j *CollectionRun) Find(f Finding, format string, args ...any) {
	j.warn.addFinding(f, fmt.Sprintf(format, args...))
}

// Find adds a warning to the site's run, as Warn does, with f, what it
// means to the site's owner (see Warning).
func (d *SiteDiscovery) Find(f Finding, format string, args ...any) {
	d.d.warn(Warning{Text: fmt.Sprintf(format, args...), Finding: f})
}

// BrokenFinding is Broken with f, what the warning it becomes means to
// the site's owner.
func (d *SiteDiscovery) BrokenFinding(f Finding, format string, args ...any) {
	d.d.Broken = append(d.d.Broken, fmt.Sprintf(format, args...))
	d.broken = append(d.broken, f)
}
