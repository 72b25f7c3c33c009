// CraigslistBargain's page widget: the listing and your target price, a final offer in dollars,
// answers to the partner's offer, and quitting. Loaded by duologue's chat page.
(function () {
  "use strict";
  function money(x) { return "$" + (Math.round(x * 100) / 100).toLocaleString(); }

  duologueChat.widget({
    private: function (box, api) {
      var state = api.state(), el = api.el, p = state.private, pub = state.public;
      var item = p.item || {};
      box.appendChild(el("p", {}, [el("strong", { text: "You are the " + p.role + "." }), " " + (p.role === "buyer" ? "Buy this item for as little as you can. " : "Sell this item for as much as you can. ") + "Your target price is " + money(p.target) + "."]));
      box.appendChild(el("h3", { text: item.title || pub.title }));
      box.appendChild(el("p", { text: "Listed at " + money(pub.listing_price) + " · " + (pub.category || "") }));
      (item.description || []).forEach(function (line) { box.appendChild(el("p", { class: "meta", text: line })); });
      box.appendChild(el("p", { class: "meta", text: "Chat to agree on a price. Then one of you makes a final offer, and the other accepts or rejects it." }));
      return true;
    },
    eventText: function (e, own) {
      switch (e.kind) {
        case "offer": return (own ? "You made a final offer of " : "Your partner made a final offer of ") + money(e.price);
        case "accept": return own ? "You accepted the offer." : "Your partner accepted the offer.";
        case "reject": return own ? "You rejected the offer." : "Your partner rejected the offer.";
        case "quit": return own ? "You quit." : "Your partner quit.";
        default: return null;
      }
    },
    outcome: function (o) { return o.agreed && o.deal && o.deal.price !== undefined ? "The price: " + money(o.deal.price) + "." : null; },
    controls: function (box, api) {
      var state = api.state(), el = api.el, can = api.can, move = api.move;
      if (can("accept")) {
        var offer = null;
        for (var i = state.events.length - 1; i >= 0; i--) if (state.events[i].kind === "offer") { offer = state.events[i]; break; }
        box.appendChild(el("fieldset", {}, [el("legend", { text: "Your partner's final offer" + (offer ? ": " + money(offer.price) : "") }), el("div", { class: "row" }, [
          el("button", { type: "button", id: "accept-offer", text: "Accept", onclick: function () { move({ kind: "accept" }); } }),
          el("button", { type: "button", id: "reject-offer", class: "secondary", text: "Reject", onclick: function () { move({ kind: "reject" }); } })
        ])]));
      }
      var schema = api.schemaFor("offer");
      if (schema) {
        var bounds = schema.properties.price;
        var attrs = { id: "offer-price", type: "number", min: "1", step: "1", inputmode: "decimal", required: "required" };
        if (bounds.maximum !== undefined) attrs.max = String(bounds.maximum);
        var input = el("input", attrs);
        var form = el("form", { id: "offer-form", class: "row" }, [el("label", { for: "offer-price", text: "Final offer ($)" }), input, el("button", { type: "submit", id: "make-offer", text: "Make final offer" })]);
        form.addEventListener("submit", function (ev) {
          ev.preventDefault();
          var price = Number(input.value);
          if (!(price > 0)) { api.showError("Enter a price above 0."); return; }
          if (bounds.maximum !== undefined && price > bounds.maximum) { api.showError("Enter a price of at most " + money(bounds.maximum) + "."); return; }
          move({ kind: "offer", price: price });
        });
        box.appendChild(form);
      } else if (!can("accept") && state.legal.length && !can("quit")) {
        box.appendChild(el("p", { class: "notice", text: "Waiting for your partner to accept or reject your offer…" }));
      }
      if (can("quit")) box.appendChild(el("div", { class: "row" }, [el("button", { type: "button", class: "danger", id: "quit", text: "Quit without a deal", onclick: function () { if (confirm("Quit without a deal?")) move({ kind: "quit" }); } })]));
      return ["offer", "accept", "reject", "quit"];
    }
  });
})();
