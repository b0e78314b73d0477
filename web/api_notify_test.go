package web

import (
	"net/http"
	"sync/atomic"
	"testing"

	"tidings/fetch"
	"tidings/notify"
)

// TestAPINotifications: a person reads and changes how they are told of
// changes through the API: the digest's schedule, an address refused
// while e-mail is off, notification URLs added (once, however often
// asked), refused by the address policy with no connection made, kept
// to a followed site only, and removed; another person sees none of it.
func TestAPINotifications(t *testing.T) {
	store := openStore(t)
	var dialed atomic.Int32
	n, err := notify.New(store, notify.Options{BaseURL: testBase,
		Client: fetch.NewClient(fetch.ClientOptions{DialHook: func(string, string) { dialed.Add(1) }})})
	if err != nil {
		t.Fatal(err)
	}
	app := newUIApp(t, store, Options{Notify: n})
	_, annToken := newPerson(t, store, "ann")
	_, bobToken := newPerson(t, store, "bob")
	api := newAPIServer(t, app)
	ann, bob := api.as(annToken), api.as(bobToken)

	type settings struct {
		Email   string `json:"email"`
		Every   string `json:"every"`
		EmailOn bool   `json:"email_on"`
		Secret  bool   `json:"push_secret_set"`
		Pushes  []struct {
			ID   int64   `json:"id"`
			URL  string  `json:"url"`
			Site *string `json:"site"`
		} `json:"pushes"`
	}
	var v settings
	ann.get("/notifications").json(t, &v)
	if v.EmailOn || v.Email != "" || len(v.Pushes) != 0 {
		t.Errorf("a new person's settings %+v", v)
	}
	r := ann.call(http.MethodPut, "/notifications", "application/json", []byte(`{"every": "weekly", "push_secret": "s3cret"}`), true)
	r.json(t, &v)
	if r.status != http.StatusOK || v.Every != "weekly" || !v.Secret {
		t.Errorf("set weekly and a secret: %d %+v", r.status, v)
	}
	ann.call(http.MethodPut, "/notifications", "application/json", []byte(`{"email": "ann@example.org"}`), true).
		problem(t, http.StatusUnprocessableEntity, "settings_refused")
	ann.call(http.MethodPut, "/notifications", "application/json", []byte(`{"every": "hourly"}`), false).
		problem(t, http.StatusUnprocessableEntity, "settings_refused")

	r = ann.post("/notifications/pushes", map[string]string{"url": "discord://token@123456789"})
	var push struct {
		ID  int64  `json:"id"`
		URL string `json:"url"`
	}
	r.json(t, &push)
	if r.status != http.StatusCreated || push.URL != "discord://token@123456789" {
		t.Fatalf("add a push: %d %s", r.status, r.body)
	}
	r = ann.post("/notifications/pushes", map[string]string{"url": "discord://token@123456789"})
	var again struct{ ID int64 }
	r.json(t, &again)
	if r.status != http.StatusOK || again.ID != push.ID {
		t.Errorf("the same push again: %d %+v, want 200 with %d", r.status, again, push.ID)
	}
	ann.post("/notifications/pushes", map[string]string{"url": "generic+http://127.0.0.1:9/hook"}).
		problem(t, http.StatusUnprocessableEntity, "push_refused")
	ann.post("/notifications/pushes", map[string]string{"url": "discord://other@1", "site": "0123456789abcdef0123456789abcdef"}).
		problem(t, http.StatusNotFound, "not_found")
	if k := dialed.Load(); k != 0 {
		t.Errorf("%d connections made while checking notification URLs", k)
	}

	bob.get("/notifications").json(t, &v)
	if len(v.Pushes) != 0 || v.Every == "weekly" {
		t.Errorf("bob sees %+v", v)
	}
	bob.delete("/notifications/pushes/"+itoa(push.ID)).problem(t, http.StatusNotFound, "not_found")
	if r := ann.delete("/notifications/pushes/" + itoa(push.ID)); r.status != http.StatusNoContent {
		t.Errorf("remove the push: %d", r.status)
	}
	ann.get("/notifications").json(t, &v)
	if len(v.Pushes) != 0 {
		t.Errorf("pushes left %+v", v.Pushes)
	}
}
