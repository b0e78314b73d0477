package harvest

// PageTextMax is the most bytes of one page's text the run keeps, or 0
// when it keeps none (page snapshots are off): a source whose change
// information carries page texts then need not build them.
func (j *CollectionRun) PageTextMax() int {
	if j.h.opts.Snapshots.Off {
		return 0
	}
	return j.h.opts.Snapshots.MaxText
}

// GivePage keeps the text of a page as the change information carried it
// (one line per heading, paragraph or quote, white space collapsed, at
// most PageTextMax bytes, as pagetext reads a fetched page), so that its
// snapshot costs no fetch. A later version of the page replaces it.
// Past what one run may hold, the page is fetched like any other.
func (j *CollectionRun) GivePage(url, title, text string) {
	if j.h.opts.Snapshots.Off {
		return
	}
	if old, ok := j.given[url]; ok {
		j.givenBytes -= len(old.text)
	} else if j.givenBytes+len(text) > maxGivenBytes {
		return
	}
	if j.given == nil {
		j.given = map[string]givenPage{}
	}
	j.given[url] = givenPage{title: title, text: text}
	j.givenBytes += len(text)
}
