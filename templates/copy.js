// A "Copy" button beside every feed address. Served from tidings itself,
// so the Content-Security-Policy (script-src 'self') allows it; without
// script the addresses stay selectable read-only fields.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const field of document.querySelectorAll("input.feedurl[readonly]")) {
    const row = document.createElement("span");
    row.className = "copyrow";
    field.replaceWith(row);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy " + (field.labels[0]?.textContent.trim() || "address"));
    row.append(field, button);
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(field.value);
      } catch {
        // Without clipboard access (plain http off localhost), select
        // the text for the person to copy.
        field.select();
        button.textContent = "Selected: copy it";
        return;
      }
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = "Copy"; }, 2000);
    });
  }
});
