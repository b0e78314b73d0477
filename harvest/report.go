package harvest

// Documents counts the documents the harvest fetched, discovery included,
// 304 answers included.
func (r *SiteReport) Documents() int {
	n := r.Run.Documents
	for _, c := range r.Collections {
		n += c.Run.Documents
	}
	return n
}

// Warnings counts the warnings of the harvest, the site's and its
// collections'.
func (r *SiteReport) Warnings() int {
	n := len(r.Run.Warnings)
	for _, c := range r.Collections {
		n += len(c.Run.Warnings)
	}
	return n
}

// Protocols lists the protocols tidings harvests, by the names stored as
// collections' protocol, ResourceSync first.
func Protocols() []string { return protocolNames() }
