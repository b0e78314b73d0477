package harvest

// fail drops what a failed harvest read, so that only its error is
// stored and the documents are read again next time.
func (h *smHarvest) fail() {
	h.changes, h.pages, h.gone, h.state, h.snapshots, h.checked = nil, nil, nil, nil, nil, nil
	h.s.states = nil
}
