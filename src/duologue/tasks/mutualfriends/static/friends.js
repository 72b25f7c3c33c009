// MutualFriends' page widget: your friends as a sortable table with a Select button on each row
// (first, so it stays on screen on a phone), and the task's feedback on wrong selections.
// Loaded by duologue's chat page.
(function () {
  "use strict";
  var sortKey = null, sortUp = true;

  function friendText(item) { return Object.keys(item).map(function (k) { return item[k]; }).join(", "); }

  function renderFriends(api) {
    var wrap = document.getElementById("friends"); if (!wrap) return;
    var state = api.state(), el = api.el;
    var items = state.items && state.items.length ? state.items : (state.private.friends || []);
    var cols = items.length ? Object.keys(items[0]) : [];
    var selected = state.events.filter(function (e) { return e.kind === "select" && e.party === state.party; }).map(function (e) { return JSON.stringify(e.item); });
    var rows = items.map(function (item, i) { return { item: item, i: i }; });
    if (sortKey) rows.sort(function (a, b) { var x = String(a.item[sortKey]), y = String(b.item[sortKey]); return (x < y ? -1 : x > y ? 1 : 0) * (sortUp ? 1 : -1); });
    var head = el("tr", {}, [el("th", { scope: "col" }, [el("span", { class: "visually-hidden", text: "Select" })])].concat(cols.map(function (c) {
      var label = c + (sortKey === c ? (sortUp ? " ▲" : " ▼") : "");
      return el("th", { scope: "col", "aria-sort": sortKey === c ? (sortUp ? "ascending" : "descending") : "none" }, [el("button", { type: "button", class: "sort", text: label, onclick: function () { if (sortKey === c) sortUp = !sortUp; else { sortKey = c; sortUp = true; } renderFriends(api); } })]);
    })));
    var body = rows.map(function (r) {
      var picked = selected.indexOf(JSON.stringify(r.item)) >= 0;
      var b = el("button", { type: "button", class: "secondary select-friend", "data-row": String(r.i), "aria-label": "Select " + friendText(r.item), text: "Select", onclick: function () { api.move({ kind: "select", item: r.item }); } });
      if (state.done || !api.can("select")) b.disabled = true;
      return el("tr", { class: picked ? "picked" : "" }, [el("td", { class: "pick" }, [b])].concat(cols.map(function (c) { return el("td", { text: String(r.item[c]), "data-label": c }); })));
    });
    wrap.textContent = "";
    wrap.appendChild(el("table", { class: "friends" }, [el("caption", { class: "visually-hidden", text: "Your friends" }), el("thead", {}, [head]), el("tbody", {}, body)]));
    var fb = document.getElementById("feedback");
    if (fb) { fb.textContent = ""; (state.feedback || []).forEach(function (f) { fb.appendChild(el("li", { text: f })); }); }
  }

  duologueChat.widget({
    private: function (box, api) {
      var el = api.el;
      box.appendChild(el("p", { text: "You and your partner each have a list of friends. Exactly one friend is on both lists. Chat to find them, then press Select on that row." }));
      box.appendChild(el("div", { id: "friends" }));
      box.appendChild(el("ul", { id: "feedback", class: "error", "aria-live": "polite" }));
      renderFriends(api);
      return true;
    },
    refresh: renderFriends,
    eventText: function (e, own) {
      if (e.kind === "select") return (own ? "You selected: " : "Your partner selected: ") + friendText(e.item);
      return null;
    },
    outcome: function (o, api) { return api.state().end_reason === "success" || o.reason === "success" ? "You both found the mutual friend!" : null; },
    controls: function () { return ["select"]; }
  });
})();
