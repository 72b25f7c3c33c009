// CaSiNo's page widget: the camper's priorities and reasons, a deal form (how many packages of
// each item you get; your partner gets the rest), answers to a proposed deal, and walking away.
// Loaded by duologue's chat page (see duologue/web/static/chat.js for the widget hooks).
(function () {
  "use strict";
  var LEVELS = ["High", "Medium", "Low"];

  function dealText(e, own, mine, theirs) {
    var a = Object.keys(mine || {}).map(function (k) { return mine[k] + " " + k; }).join(", ");
    var b = Object.keys(theirs || {}).map(function (k) { return theirs[k] + " " + k; }).join(", ");
    return own ? "You proposed: you get " + a + "; your partner gets " + b + "."
               : "Your partner proposed: they get " + a + "; you get " + b + ".";
  }

  function pendingDeal(state) {
    for (var i = state.events.length - 1; i >= 0; i--) {
      var e = state.events[i];
      if (e.kind === "submit-deal") return e;
      if (e.kind === "reject-deal" || e.kind === "accept-deal") return null;
    }
    return null;
  }

  duologueChat.widget({
    private: function (box, api) {
      var state = api.state(), el = api.el, p = state.private, pub = state.public;
      box.appendChild(el("p", { text: "You and another camper are going camping. Split " + pub.issues.map(function (k) { return pub.packages[k] + " " + k; }).join(", ") + ". High priority items are worth " + pub.points.High + " points each, medium " + pub.points.Medium + ", low " + pub.points.Low + ". Walking away gives each of you " + pub.walk_away_points + " points." }));
      var rows = LEVELS.map(function (level) {
        var issue = p.value2issue[level];
        return el("tr", {}, [el("th", { scope: "row", text: issue }), el("td", { text: level }), el("td", { text: (p.reasons || {})[issue] || "" })]);
      });
      box.appendChild(el("table", {}, [el("caption", { class: "visually-hidden", text: "Your priorities" }), el("thead", {}, [el("tr", {}, [el("th", { text: "Item" }), el("th", { text: "Your priority" }), el("th", { text: "Your reason" })])]), el("tbody", {}, rows)]));
      return true;
    },
    eventText: function (e, own) {
      switch (e.kind) {
        case "submit-deal": return dealText(e, own, e.mine, e.theirs);
        case "accept-deal": return own ? "You accepted the deal." : "Your partner accepted the deal.";
        case "reject-deal": return own ? "You rejected the deal." : "Your partner rejected the deal.";
        case "walk-away": return own ? "You walked away." : "Your partner walked away.";
        default: return null;
      }
    },
    outcome: function (o) { return o.score !== null && o.score !== undefined ? "Your points: " + o.score + "." : null; },
    controls: function (box, api) {
      var state = api.state(), el = api.el, can = api.can, move = api.move;
      var issues = state.public.issues, total = state.public.packages;
      var pending = pendingDeal(state);
      if (can("accept-deal")) {
        var fs = el("fieldset", {}, [el("legend", { text: pending ? "Your partner proposes: you get " + issues.map(function (k) { return pending.theirs[k] + " " + k; }).join(", ") + "." : "Your partner proposed a deal." })]);
        fs.appendChild(el("div", { class: "row" }, [
          el("button", { type: "button", id: "accept-deal", text: "Accept deal", onclick: function () { move({ kind: "accept-deal" }); } }),
          el("button", { type: "button", id: "reject-deal", class: "secondary", text: "Reject deal", onclick: function () { move({ kind: "reject-deal" }); } })
        ]));
        box.appendChild(fs);
      }
      if (can("submit-deal")) {
        var form = el("form", { id: "deal-form" });
        var fs2 = el("fieldset", {}, [el("legend", { text: "Propose a deal (how many of each you get)" })]);
        var grid = el("div", { class: "split-grid" }, [el("span", { text: "Item" }), el("span", { text: "You get" }), el("span", { text: "Partner gets" })]);
        var inputs = {};
        issues.forEach(function (issue) {
          var id = "deal-" + issue.toLowerCase();
          var select = el("select", { id: id, name: issue });
          for (var n = 0; n <= total[issue]; n++) select.appendChild(el("option", { value: String(n), text: String(n) }));
          var theirs = el("output", { for: id, id: id + "-theirs", text: String(total[issue]) });
          select.addEventListener("change", function () { theirs.textContent = String(total[issue] - Number(select.value)); });
          inputs[issue] = select;
          grid.appendChild(el("label", { for: id, text: issue })); grid.appendChild(select); grid.appendChild(theirs);
        });
        fs2.appendChild(grid);
        fs2.appendChild(el("button", { type: "submit", id: "submit-deal", text: "Submit deal" }));
        form.appendChild(fs2);
        form.addEventListener("submit", function (ev) {
          ev.preventDefault();
          var mine = {}, theirs = {};
          issues.forEach(function (issue) { mine[issue] = Number(inputs[issue].value); theirs[issue] = total[issue] - mine[issue]; });
          move({ kind: "submit-deal", mine: mine, theirs: theirs });
        });
        box.appendChild(form);
      } else if (pending && pending.party === state.party) {
        box.appendChild(el("p", { class: "notice", text: "Waiting for your partner to accept or reject your deal…" }));
      }
      if (can("walk-away")) box.appendChild(el("div", { class: "row" }, [el("button", { type: "button", class: "danger", id: "walk-away", text: "Walk away (" + state.public.walk_away_points + " points each)", onclick: function () { if (confirm("Walk away without a deal?")) move({ kind: "walk-away" }); } })]));
      return ["submit-deal", "accept-deal", "reject-deal", "walk-away"];
    }
  });
})();
