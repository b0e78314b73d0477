package harvest

import "flag"

// ProtocolSettings are the settings the protocol adapters own, one field
// per adapter that has any, so that Options holds none of a single
// protocol's.
type ProtocolSettings struct {
	ResourceSync ResourceSyncSettings
	SCP          SCPSettings
	Pages        PagesSettings
}

// RegisterFlags registers every protocol's flags on fs: the one place a
// command line learns them.
func (p *ProtocolSettings) RegisterFlags(fs *flag.FlagSet) {
	p.ResourceSync.RegisterFlags(fs)
	p.SCP.RegisterFlags(fs)
	p.Pages.RegisterFlags(fs)
}

func (p ProtocolSettings) withDefaults() ProtocolSettings {
	p.SCP = p.SCP.withDefaults()
	p.Pages = p.Pages.withDefaults()
	return p
}
