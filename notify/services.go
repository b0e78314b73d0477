package notify

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/discord"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/googlechat"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/rocketchat"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/slack"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/telegram"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/incident/opsgenie"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/incident/pagerduty"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/push/gotify"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/push/ntfy"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/push/pushover"
	"github.com/nicholas-fedor/shoutrrr/pkg/types"
)

// service is one kind of notification URL tidings sends to, by the
// scheme shoutrrr gives it. Every message goes through tidings' client,
// whose address policy judges each connection, redirects included, and
// is one request: either tidings makes it itself (own), or shoutrrr's
// service makes it through the client it is handed (lib). A service
// that can do neither is not offered.
type service struct {
	// own builds, without any I/O, the request that is a message to u.
	own func(u *url.URL, p push) (request, error)
	// lib makes shoutrrr's service for u, sending through hc. Making it
	// does no I/O (each one's Initialize only parses).
	lib func(u *url.URL, hc *http.Client) (types.Service, error)
	// fixed: the URL names an account on the service's own API, never a
	// host, so there is no host to judge before sending.
	fixed bool
}

// request is a message as one HTTP POST.
type request struct {
	URL         string
	ContentType string
	Body        []byte
	Header      http.Header
}

// services are those tidings sends to. shoutrrr's others are refused:
// matrix logs in while its URL is read, and the rest send through
// clients of their own (http.DefaultClient, a package's client, their
// own dialer) that tidings cannot hand its policy.
var services = map[string]service{
	"ntfy":       {lib: libNtfy},
	"pushover":   {lib: libPushover, fixed: true},
	"discord":    {lib: libDiscord, fixed: true},
	"rocketchat": {lib: libRocketChat},
	"pagerduty":  {lib: libPagerDuty},
	"gotify":     {own: ownGotify},
	"googlechat": {own: ownGoogleChat},
	"hangouts":   {own: ownGoogleChat},
	"opsgenie":   {own: ownOpsGenie},
	"slack":      {own: ownSlack, fixed: true},
	"telegram":   {own: ownTelegram, fixed: true},
}

// offered lists the services for people, as they write their URLs.
const offered = "ntfy://, gotify://, discord://, slack://hook:…, telegram://, pushover://, googlechat://, opsgenie://, pagerduty://, rocketchat://, or a webhook written generic+https://host/path"

func libNtfy(u *url.URL, hc *http.Client) (types.Service, error) {
	s := &ntfy.Service{}
	if err := s.Initialize(u, nil); err != nil {
		return nil, err
	}
	s.SetHTTPClient(hc)
	return s, nil
}

func libPushover(u *url.URL, hc *http.Client) (types.Service, error) {
	s := &pushover.Service{}
	if err := s.Initialize(u, nil); err != nil {
		return nil, err
	}
	s.Client = hc
	return s, nil
}

func libDiscord(u *url.URL, hc *http.Client) (types.Service, error) {
	s := &discord.Service{}
	if err := s.Initialize(u, nil); err != nil {
		return nil, err
	}
	s.HTTPClient = hc
	// Its own retries would not be made (one request a message), so
	// there is nothing to wait for between them.
	s.Sleeper = noSleep{}
	return s, nil
}

type noSleep struct{}

func (noSleep) Sleep(time.Duration) {}

func libRocketChat(u *url.URL, hc *http.Client) (types.Service, error) {
	s := &rocketchat.Service{}
	if err := s.Initialize(u, nil); err != nil {
		return nil, err
	}
	s.Client = hc
	return s, nil
}

func libPagerDuty(u *url.URL, hc *http.Client) (types.Service, error) {
	s := &pagerduty.Service{}
	if err := s.Initialize(u, nil); err != nil {
		return nil, err
	}
	s.SetHTTPClient(hc)
	return s, nil
}

// jsonRequest is a POST of v as JSON.
func jsonRequest(to string, v any, h http.Header) (request, error) {
	body, err := json.Marshal(v)
	return request{URL: to, ContentType: "application/json", Body: body, Header: h}, err
}

func ownGotify(u *url.URL, p push) (request, error) {
	c := &gotify.Config{}
	if err := c.SetURL(u); err != nil {
		return request{}, err
	}
	if c.Host == "" || !(&gotify.DefaultValidator{}).ValidateToken(c.Token) {
		return request{}, errors.New("a gotify:// URL names the server and an application's token: gotify://host/token")
	}
	to, err := (&gotify.DefaultURLBuilder{}).BuildURL(c)
	if err != nil {
		return request{}, err
	}
	var h http.Header
	if c.UseHeader {
		h = http.Header{"X-Gotify-Key": {c.Token}}
	}
	return jsonRequest(to, gotify.MessageRequest{Message: p.Text, Title: p.Title, Priority: c.Priority, Extras: c.Extras}, h)
}

func ownGoogleChat(u *url.URL, p push) (request, error) {
	c := &googlechat.Config{}
	if err := c.SetURL(u); err != nil {
		return request{}, err
	}
	if c.Host == "" || c.Key == "" || c.Token == "" {
		return request{}, errors.New("a googlechat:// URL is the space's webhook with its key and token: googlechat://chat.googleapis.com/v1/spaces/…/messages?key=…&token=…")
	}
	to := url.URL{Scheme: "https", Host: c.Host, Path: c.Path, RawQuery: url.Values{"key": {c.Key}, "token": {c.Token}}.Encode()}
	return jsonRequest(to.String(), googlechat.JSON{Text: "*" + p.Title + "*\n" + p.Text}, nil)
}

func ownOpsGenie(u *url.URL, p push) (request, error) {
	c := &opsgenie.Config{}
	if err := c.SetURL(u); err != nil {
		return request{}, err
	}
	if c.APIKey == "" {
		return request{}, errors.New("an opsgenie:// URL names the API key: opsgenie://api.opsgenie.com/key")
	}
	if c.Host == "" {
		c.Host = "api.opsgenie.com"
	}
	to := url.URL{Scheme: "https", Host: net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port))), Path: "/v2/alerts"}
	desc := p.Text
	if c.Description != "" {
		desc += "\n" + c.Description
	}
	return jsonRequest(to.String(), opsgenie.AlertPayload{
		Message: clip(p.Title, opsgenie.MaxMessageLength), Description: desc, Alias: c.Alias, Responders: c.Responders,
		VisibleTo: c.VisibleTo, Actions: c.Actions, Tags: c.Tags, Details: c.Details, Entity: c.Entity,
		Source: c.Source, Priority: c.Priority, User: c.User, Note: c.Note,
	}, http.Header{"Authorization": {"GenieKey " + c.APIKey}})
}

func ownSlack(u *url.URL, p push) (request, error) {
	c, err := slack.CreateConfigFromURL(u)
	if err != nil {
		return request{}, err
	}
	if c.Token.IsAPIToken() {
		// The API answers its errors with 200 and a body: a message refused
		// would pass for one sent.
		return request{}, errors.New("tidings sends to Slack through an incoming webhook, slack://hook:…, not with a bot token")
	}
	c.Title = p.Title
	return jsonRequest(c.Token.WebhookURL(), slack.CreateJSONPayload(c, p.Text), nil)
}

func ownTelegram(u *url.URL, p push) (request, error) {
	c := &telegram.Config{Preview: true, Notification: true}
	if err := c.SetURL(u); err != nil {
		return request{}, err
	}
	if len(c.Chats) != 1 {
		// One request a message, so that a retry repeats it to no one.
		return request{}, errors.New("a telegram:// URL names one chat here (chats=…): add one URL for each chat")
	}
	chat, thread, _ := strings.Cut(c.Chats[0], ":")
	m := telegram.SendMessagePayload{
		Text:                "<b>" + html.EscapeString(p.Title) + "</b>\n" + html.EscapeString(p.Text),
		ID:                  chat,
		ParseMode:           "HTML",
		DisablePreview:      !c.Preview,
		DisableNotification: !c.Notification,
	}
	if n, err := strconv.Atoi(thread); err == nil {
		m.MessageThreadID = &n
	}
	return jsonRequest(fmt.Sprintf("https://api.telegram.org/bot%s/sendMessage", c.Token), m, nil)
}
