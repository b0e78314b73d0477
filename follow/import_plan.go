package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tidings/db"
	"tidings/imports"
)

// checkAddressesFor bounds the time a preview spends asking the address
// policy about hosts (it may resolve their names): hosts it has not
// reached by then are left to their discoveries to judge.
const checkAddressesFor = 5 * time.Second

// Planned is a site an import will follow.
type Planned struct {
	imports.Site
	// Root is the site, as a follow normalises the address.
	Root string
	// Followed: the person follows the site already; the import keeps
	// the name they gave it, and adds the rules.
	Followed bool
}

// Preview is what an import of a file does: the sites it follows, the
// entries it refuses with why, and the notification settings it sets
// (Settings) or cannot (NotSet).
type Preview struct {
	Format   string
	Follow   []Planned
	Refused  []imports.Refusal
	Settings []string
	NotSet   []imports.Refusal
	// plan keeps what ImportPlan applies of the settings.
	digest, email string
}

// Notifications is what an import sets of a person's notification
// settings: *notify.Notifier.
type Notifications interface {
	EmailOn() bool
	SetEvery(ctx context.Context, userID int64, every string) error
	RequestEmail(ctx context.Context, u db.User, addr string) error
}

// Preview says what importing plan would do for a person, changing
// nothing: each address normalised as a follow does, refused with why
// when it cannot be followed (not an address, refused by the address
// policy, past the import's or the person's bounds), several addresses
// of one site made one follow, each rule checked as the site page
// checks it. n may be nil: then no notification setting is taken.
func (s *Service) Preview(ctx context.Context, userID int64, plan *imports.Plan, n Notifications) (Preview, error) {
	pv := Preview{Format: plan.Format, Refused: append([]imports.Refusal(nil), plan.Refused...)}
	bySite := map[string]int{}
	checkCtx, cancel := context.WithTimeout(ctx, checkAddressesFor)
	defer cancel()
	for _, site := range plan.Sites {
		what := site.From + " (" + site.URL + ")"
		a, err := ParseAddress(site.URL)
		if err != nil {
			pv.Refused = append(pv.Refused, imports.Refusal{What: what, Why: err.Error()})
			continue
		}
		if i, ok := bySite[a.Root]; ok {
			pv.Follow[i].merge(site)
			continue
		}
		if len(pv.Follow) >= MaxImportSites {
			pv.Refused = append(pv.Refused, imports.Refusal{What: what, Why: fmt.Sprintf("only %d sites are imported at once", MaxImportSites)})
			continue
		}
		if checkCtx.Err() == nil {
			if err := s.h.CheckAddress(checkCtx, a.Root); err != nil && checkCtx.Err() == nil {
				pv.Refused = append(pv.Refused, imports.Refusal{What: what, Why: err.Error()})
				continue
			}
		}
		p := Planned{Site: site, Root: a.Root}
		p.Rules = nil
		for _, r := range site.Rules {
			p.addRule(r)
		}
		looked, err := s.Lookup(ctx, userID, site.URL)
		if err != nil {
			return Preview{}, err
		}
		p.Followed = looked.Followed
		bySite[a.Root] = len(pv.Follow)
		pv.Follow = append(pv.Follow, p)
	}
	if err := s.previewRoom(ctx, userID, &pv); err != nil {
		return Preview{}, err
	}
	if plan.Settings != nil {
		if err := s.previewSettings(ctx, userID, *plan.Settings, n, &pv); err != nil {
			return Preview{}, err
		}
	}
	return pv, nil
}

// addRule keeps a rule checked as the site page checks it, or notes why
// not.
func (p *Planned) addRule(r imports.Rule) {
	pattern, err := CheckRule(r.Kind, r.Pattern)
	var bad *RuleError
	if errors.As(err, &bad) {
		p.Notes = append(p.Notes, fmt.Sprintf("the rule %q is not kept: %s", r.Pattern, bad.Msg))
		return
	}
	r.Pattern = pattern
	for _, have := range p.Rules {
		if have == r {
			return
		}
	}
	if len(p.Rules) >= db.MaxIgnoreRules {
		p.Notes = append(p.Notes, fmt.Sprintf("the rule %q is not kept: a site takes at most %d", r.Pattern, db.MaxIgnoreRules))
		return
	}
	p.Rules = append(p.Rules, r)
}

// merge makes another entry for the same site part of its one follow.
func (p *Planned) merge(other imports.Site) {
	if p.Title == "" {
		p.Title = other.Title
	}
	for _, t := range other.Tags {
		if len(p.Tags) < imports.MaxTags && !contains(p.Tags, t) {
			p.Tags = append(p.Tags, t)
		}
	}
	for _, r := range other.Rules {
		p.addRule(r)
	}
	p.Notes = append(p.Notes, other.Notes...)
	p.Notes = append(p.Notes, fmt.Sprintf("%s (%s) is of the same site: one follow for both", other.From, other.URL))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// previewRoom refuses the sites past the room the person's quotas leave
// (the sites they follow already take none).
func (s *Service) previewRoom(ctx context.Context, userID int64, pv *Preview) error {
	room, err := s.importRoom(ctx, userID)
	var pending *PendingError
	var quota *QuotaError
	switch {
	case errors.As(err, &pending):
		room = importRoom{why: fmt.Sprintf("not queued: you already have %d sites waiting to be looked at, the most there may be; import the file again once they are done", pending.Pending)}
	case errors.As(err, &quota):
		room = importRoom{why: "not followed: " + quota.Message()}
	case err != nil:
		return err
	}
	var kept []Planned
	for _, p := range pv.Follow {
		if !p.Followed && room.n == 0 {
			pv.Refused = append(pv.Refused, imports.Refusal{What: p.URL, Why: room.why})
			continue
		}
		if !p.Followed {
			room.n--
		}
		kept = append(kept, p)
	}
	pv.Follow = kept
	return nil
}

// previewSettings says what of an export's notification settings the
// import sets, and refuses what it cannot: secrets are not in an
// export, and an address is confirmed by the link sent to it.
func (s *Service) previewSettings(ctx context.Context, userID int64, set imports.Settings, n Notifications, pv *Preview) error {
	refuse := func(what, why string) { pv.NotSet = append(pv.NotSet, imports.Refusal{What: what, Why: why}) }
	if n == nil {
		refuse("notification settings", "this tidings sends no notifications")
		return nil
	}
	switch set.Digest {
	case db.EveryDaily, db.EveryWeekly, db.EveryOff:
		pv.digest = set.Digest
		pv.Settings = append(pv.Settings, "the e-mail digest: "+set.Digest)
	case "":
	default:
		refuse("the e-mail digest", fmt.Sprintf("%q is not how often a digest is sent: daily, weekly or off", set.Digest))
	}
	if set.Email != "" {
		have, err := s.store.NotifySettingsOf(ctx, userID)
		if err != nil {
			return err
		}
		switch {
		case have.Email == set.Email:
			pv.Settings = append(pv.Settings, "digests go to "+set.Email+", as they do already")
		case !n.EmailOn():
			refuse("the e-mail address "+set.Email, "e-mail is off on this tidings: its operator has not set an SMTP server")
		default:
			pv.email = set.Email
			pv.Settings = append(pv.Settings, "digests go to "+set.Email+" once you follow the confirmation link sent there")
		}
	}
	if set.WebhookSecret {
		refuse("the webhooks' signing secret", "an export leaves secrets out: set it again on the settings page")
	}
	for _, p := range set.Pushes {
		what := "the push target " + p.Service
		if p.Site != "" {
			what += " for " + p.Site
		}
		refuse(what, "an export leaves out a notification URL, which holds its secrets: add it again on the settings page")
	}
	return nil
}

// ImportPlan imports a file for a person as Preview says: it follows
// the sites (the discoveries of those not yet here run in the
// background, and each follow takes the name and the rules the file
// gives) and sets the notification settings. The refusals are recorded
// with the import. Errors a person is told of: *NothingToImportError,
// *PendingError, *QuotaError.
func (s *Service) ImportPlan(ctx context.Context, u db.User, plan *imports.Plan, n Notifications) (db.Import, Preview, error) {
	pv, err := s.Preview(ctx, u.ID, plan, n)
	if err != nil {
		return db.Import{}, pv, err
	}
	var skipped []string
	for _, r := range append(pv.Refused, pv.NotSet...) {
		skipped = append(skipped, r.What+": "+r.Why)
	}
	if len(pv.Follow) == 0 && len(pv.Settings) == 0 {
		// A file of sites, none of which there is room for, says why.
		if _, err := s.importRoom(ctx, u.ID); err != nil {
			return db.Import{}, pv, err
		}
		return db.Import{}, pv, &NothingToImportError{Skipped: skipped}
	}
	if pv.digest != "" {
		if err := n.SetEvery(ctx, u.ID, pv.digest); err != nil {
			return db.Import{}, pv, err
		}
	}
	if pv.email != "" {
		if err := n.RequestEmail(ctx, u, pv.email); err != nil {
			return db.Import{}, pv, err
		}
	}
	sites := make([]db.ImportSite, 0, len(pv.Follow))
	ready := map[string]pending{}
	for _, p := range pv.Follow {
		site := db.ImportSite{URL: p.URL, Title: p.Title}
		for _, r := range p.Rules {
			site.Rules = append(site.Rules, db.ImportRule{Kind: r.Kind, Pattern: r.Pattern})
		}
		a, err := ParseAddress(p.URL)
		if err == nil {
			site.URL = a.String()
		}
		sites = append(sites, site)
		ready[site.URL] = pending{addr: a}
	}
	if len(sites) == 0 {
		im, err := s.store.CreateImportTitled(ctx, u.ID, nil, skipped)
		return im, pv, err
	}
	im, err := s.queueImport(ctx, u.ID, sites, ready, skipped)
	return im, pv, err
}

// Confirmed is the file a preview's page sends back to be imported:
// what it follows, as tidings' own export, with the plan's settings.
// The entries refused stay with the page, which sends them too.
func (pv Preview) Confirmed(settings *imports.Settings) imports.Export {
	e := imports.Export{Tidings: imports.ExportVersion, Follows: []imports.ExportFollow{}}
	for _, p := range pv.Follow {
		e.Follows = append(e.Follows, imports.ExportFollow{URL: p.URL, Title: p.Title, Rules: p.Rules})
	}
	if settings != nil {
		e.Settings = *settings
	}
	return e
}
