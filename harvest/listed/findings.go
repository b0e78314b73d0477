package listed

import "tidings/harvest"

// CodeBuildStamped names a list whose every date is its build's, stable
// for scripts.
const CodeBuildStamped = "build-stamped"

// stampFinding is the finding of the list at doc whose dates are its
// build's: it still works, at the cost of reading every page to confirm
// a change.
func stampFinding(doc string) harvest.Finding {
	return harvest.Finding{Code: CodeBuildStamped, Document: doc,
		Message: "the sitemap's lastmod is the build time on (nearly) every page, so it cannot say which pages changed",
		Fix: "Give each <url> the date its page's content last changed, or leave lastmod out; better, publish a ResourceSync change list " +
			"(tidings publish writes one). Meanwhile tidings reads the pages to confirm each change."}
}
