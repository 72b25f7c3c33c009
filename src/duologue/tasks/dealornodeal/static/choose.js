// Deal or No Deal's page widget: the pool with what each item is worth to you, and the private
// choice as a split (what you take; your partner gets the rest) with your points shown as you
// choose. The partner's choice stays hidden until the end: it reads "Your partner has chosen".
// Loaded by duologue's chat page (see duologue/web/static/chat.js for the widget hooks).
(function () {
  "use strict";

  function plural(n, item) { return n + " " + item + (n === 1 ? "" : "s"); }
  function listed(counts, items) {
    var parts = items.filter(function (k) { return (counts || {})[k]; }).map(function (k) { return plural(counts[k], k); });
    return parts.length ? parts.join(", ") : "nothing";
  }
  function points(take, values, items) {
    return items.reduce(function (sum, k) { return sum + (take[k] || 0) * (values[k] || 0); }, 0);
  }
  function choiceOf(state, mine) {
    for (var i = 0; i < state.events.length; i++) {
      var e = state.events[i];
      if (e.kind === "choose" && (e.party === state.party) === mine) return e;
    }
    return null;
  }

  duologueChat.widget({
    private: function (box, api) {
      var state = api.state(), el = api.el, pub = state.public, values = state.private.values || {};
      box.appendChild(el("p", { text: "You and your partner split the items below. Each of you values them differently: everything together is worth " + pub.total_value + " points to you. Chat, then each of you privately chooses what you take. If your two choices fit together (between you, exactly the whole pool), you each score the points of what you took; otherwise you both score 0." }));
      var rows = pub.items.map(function (item) {
        return el("tr", {}, [el("th", { scope: "row", text: item }), el("td", { class: "num", text: String(pub.pool[item]) }), el("td", { class: "num", text: String(values[item]) }), el("td", { class: "num", text: String(pub.pool[item] * values[item]) })]);
      });
      box.appendChild(el("table", { class: "pool" }, [
        el("caption", { class: "visually-hidden", text: "The pool and what it is worth to you" }),
        el("thead", {}, [el("tr", {}, [el("th", { text: "Item" }), el("th", { text: "In the pool" }), el("th", { text: "Points each (to you)" }), el("th", { text: "All of them" })])]),
        el("tbody", {}, rows)
      ]));
      return true;
    },
    eventText: function (e, own, api) {
      if (e.kind !== "choose") return null;
      var state = api.state(), items = state.public.items, values = state.private.values || {};
      if (own) return "You chose: you take " + listed(e.mine, items) + "; your partner gets " + listed(e.theirs, items) + " (" + points(e.mine || {}, values, items) + " points for you if the choices fit).";
      if (!e.mine) return "Your partner has chosen. Their choice stays hidden until you have made yours.";
      return "Your partner chose: they take " + listed(e.mine, items) + "; you get " + listed(e.theirs, items) + ".";
    },
    outcome: function (o) { return o.score !== null && o.score !== undefined ? "Your points: " + o.score + " of 10." : null; },
    controls: function (box, api) {
      var state = api.state(), el = api.el;
      var items = state.public.items, pool = state.public.pool, values = state.private.values || {};
      var theirs = choiceOf(state, false), mine = choiceOf(state, true);
      if (!api.can("choose")) {
        if (mine) box.appendChild(el("p", { class: "notice", id: "choose-waiting", text: "You have chosen. Waiting for your partner's choice…" }));
        return ["choose"];
      }
      var form = el("form", { id: "choose-form" });
      var legend = theirs ? "Your partner has chosen. Now make your choice: what do you take?" : "Your choice (private): what do you take?";
      var fs = el("fieldset", {}, [el("legend", { text: legend })]);
      if (theirs) fs.appendChild(el("p", { class: "notice", text: "Chat is closed: your choice is your only move. Choose what you agreed on; if the two choices do not fit together, you both score 0." }));
      var grid = el("div", { class: "split-grid" }, [el("span", { text: "Item" }), el("span", { text: "You take" }), el("span", { text: "Partner gets" })]);
      var inputs = {};
      var total = el("output", { id: "choose-points", text: "0" });
      function update() {
        var take = {};
        items.forEach(function (item) { take[item] = Number(inputs[item].value); });
        total.textContent = String(points(take, values, items));
      }
      items.forEach(function (item) {
        var id = "choose-" + item;
        var select = el("select", { id: id, name: item });
        for (var n = 0; n <= pool[item]; n++) select.appendChild(el("option", { value: String(n), text: String(n) }));
        var rest = el("output", { for: id, id: id + "-theirs", text: String(pool[item]) });
        select.addEventListener("change", function () { rest.textContent = String(pool[item] - Number(select.value)); update(); });
        inputs[item] = select;
        grid.appendChild(el("label", { for: id, text: item + " (" + values[item] + " each)" })); grid.appendChild(select); grid.appendChild(rest);
      });
      fs.appendChild(grid);
      fs.appendChild(el("p", {}, ["Your points if the choices fit: ", total, " of " + state.public.total_value + "."]));
      fs.appendChild(el("button", { type: "submit", id: "submit-choice", text: "Submit my choice" }));
      form.appendChild(fs);
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        var take = {}, give = {};
        items.forEach(function (item) { take[item] = Number(inputs[item].value); give[item] = pool[item] - take[item]; });
        api.move({ kind: "choose", mine: take, theirs: give });
      });
      box.appendChild(form);
      return ["choose"];
    }
  });
})();
