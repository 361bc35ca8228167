#!/usr/bin/env python3
"""Writes N `SET <prefix>:<id> <value>` commands as RESP to standard output, for redis-cli --pipe.

    scripts/gen-memory-load.py --keys N [--seed S] [--stats FILE]

Values are JSON-like records of 200-500 bytes (length uniform, exact) over 20 key prefixes
(user profiles, session blobs, order records, ...): each prefix has its own field names, the
same in every record of that prefix, with values drawn from small vocabularies (names, cities,
statuses), numbers, timestamps, random ids and tokens, and a free-text field that fills the
record to its length. Key i is `<PREFIXES[i % 20]>:<i // 20>`, the id zero-padded to 12 digits
as redis-benchmark pads __rand_int__, so `GET user:__rand_int__ -r R` reads existing keys for
R <= ceil(N / 20). The output depends only on N and the seed (a longer run starts with the
same commands as a shorter one). Nothing is kept in memory: 10,000,000 keys stream as well.

--stats FILE gets one line: keys=N key_bytes=K value_bytes=V (V = the raw value bytes).
"""

import argparse
import random
import sys

PREFIXES = ["user", "session", "order", "product", "cart", "invoice", "payment", "address",
            "review", "inventory", "shipment", "coupon", "notification", "message", "event",
            "device", "subscription", "ticket", "account", "audit"]

FIRST = ["anna", "ben", "carla", "david", "emma", "felix", "greta", "hugo", "ida", "jonas",
         "klara", "leon", "mia", "noah", "olga", "paul", "quinn", "rosa", "sam", "tara",
         "umar", "vera", "wei", "xenia", "yusuf", "zoe", "liam", "sofia", "mateo", "aisha",
         "kenji", "priya", "lucas", "elena", "omar", "hana", "ivan", "nora", "diego", "maya"]
LAST = ["smith", "muller", "garcia", "rossi", "kowalski", "nguyen", "tanaka", "silva",
        "johnson", "schmidt", "martin", "dubois", "jensen", "novak", "ivanova", "kim", "patel",
        "lopez", "fischer", "weber", "brown", "wilson", "moreau", "costa", "horvat", "berg",
        "olsen", "sato", "chen", "singh", "ali", "haddad", "murphy", "walsh", "meyer", "wagner",
        "becker", "hoffmann", "kaya", "yilmaz"]
DOMAINS = ["example.com", "mail.test", "inbox.example", "corp.example", "post.test",
           "webmail.example", "student.example.edu", "company.test"]
CITIES = [("Berlin", "DE", "Europe/Berlin"), ("Paris", "FR", "Europe/Paris"),
          ("Madrid", "ES", "Europe/Madrid"), ("Rome", "IT", "Europe/Rome"),
          ("Warsaw", "PL", "Europe/Warsaw"), ("London", "GB", "Europe/London"),
          ("Dublin", "IE", "Europe/Dublin"), ("Vienna", "AT", "Europe/Vienna"),
          ("Prague", "CZ", "Europe/Prague"), ("Lisbon", "PT", "Europe/Lisbon"),
          ("New York", "US", "America/New_York"), ("Chicago", "US", "America/Chicago"),
          ("Austin", "US", "America/Chicago"), ("Seattle", "US", "America/Los_Angeles"),
          ("Toronto", "CA", "America/Toronto"), ("Sao Paulo", "BR", "America/Sao_Paulo"),
          ("Tokyo", "JP", "Asia/Tokyo"), ("Seoul", "KR", "Asia/Seoul"),
          ("Mumbai", "IN", "Asia/Kolkata"), ("Sydney", "AU", "Australia/Sydney")]
STREETS = ["Main St", "Oak Ave", "Hauptstrasse", "Rue de la Paix", "Calle Mayor", "Via Roma",
           "High Street", "Park Lane", "Lindenweg", "Station Road", "Market Square", "Elm St"]
LANGS = ["en", "de", "fr", "es", "it", "pl", "pt", "ja", "ko", "hi"]
CURRENCIES = ["EUR", "USD", "GBP", "JPY", "PLN", "BRL"]
PLANS = ["free", "basic", "pro", "team", "enterprise"]
ORDER_STATUS = ["pending", "paid", "packed", "shipped", "delivered", "cancelled", "refunded"]
PAY_METHODS = ["card", "paypal", "sepa", "apple_pay", "google_pay", "invoice"]
CARRIERS = ["DHL", "UPS", "FedEx", "DPD", "GLS", "USPS", "Royal Mail"]
CATEGORIES = ["books", "electronics", "garden", "kitchen", "toys", "sports", "fashion",
              "beauty", "office", "pets", "music", "games", "tools", "health"]
ADJ = ["classic", "compact", "deluxe", "eco", "ergonomic", "lightweight", "modern", "premium",
       "portable", "smart", "vintage", "wireless", "organic", "heavy-duty", "mini"]
NOUN = ["backpack", "blender", "chair", "desk lamp", "headphones", "jacket", "kettle",
        "keyboard", "mug", "notebook", "speaker", "sneakers", "tent", "watch", "yoga mat"]
BRANDS = ["Acme", "Northwind", "Contoso", "Globex", "Initech", "Umbrella", "Stark", "Wayne",
          "Hooli", "Vandelay"]
OSES = [("Windows NT 10.0; Win64; x64", "desktop"), ("Macintosh; Intel Mac OS X 10_15_7", "desktop"),
        ("X11; Linux x86_64", "desktop"), ("iPhone; CPU iPhone OS 17_2 like Mac OS X", "mobile"),
        ("Linux; Android 14; Pixel 8", "mobile"), ("iPad; CPU OS 16_6 like Mac OS X", "tablet")]
BROWSERS = ["Chrome/120.0.0.0 Safari/537.36", "Firefox/121.0", "Version/17.2 Safari/605.1.15",
            "Edg/120.0.2210.91", "OPR/105.0.0.0"]
EVENTS = ["page_view", "click", "add_to_cart", "checkout_start", "purchase", "search", "login",
          "logout", "signup", "share"]
PAGES = ["/", "/search", "/cart", "/checkout", "/account", "/products", "/help", "/blog",
         "/deals", "/orders"]
LEVELS = ["info", "info", "info", "warning", "error"]
ROLES = ["viewer", "editor", "admin", "billing", "support"]
CHANNELS = ["email", "push", "sms", "in_app"]
TICKET_STATUS = ["open", "pending", "on_hold", "solved", "closed"]
PRIORITIES = ["low", "normal", "high", "urgent"]
ACTIONS = ["create", "update", "delete", "login", "export", "grant", "revoke", "rotate_key"]

WORDS = ("the a and to of in for is on that with as it at by this from be are was we you your "
         "our order item delivery customer support please thanks great quality price fast "
         "shipping package arrived late early box size color fits works well again recommend "
         "would not very good bad product service return refund account password reset email "
         "update address payment card failed retry success review stars team issue resolved "
         "question answer time day week month year new old first last next update note info "
         "details request access data report weekly daily team project meeting schedule change "
         "login device browser session app version release feature bug fix test check "
         "available stock warehouse store online offer discount code valid until expired "
         "subscription plan renew cancel upgrade downgrade trial free monthly annual").split()

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def build_text(rng):
    """64 KiB of sentences from WORDS; a record's free text is a random slice of it."""
    out, size = [], 0
    while size < 65536:
        n = rng.randint(5, 14)
        s = " ".join(rng.choice(WORDS) for _ in range(n))
        s = s[0].upper() + s[1:] + ". "
        out.append(s)
        size += len(s)
    return "".join(out)


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.text = build_text(self.r)
        self.head = [getattr(self, "h_" + p) for p in PREFIXES]
        # the name of each prefix's last (filling) field
        self.tail = ["bio", "data", "note", "description", "note", "memo", "descriptor",
                     "instructions", "body", "comment", "tracking_note", "terms", "body", "text",
                     "payload", "user_agent_note", "note", "description", "memo", "detail"]

    # --- helpers -------------------------------------------------------------------------------
    def ts(self):
        r = self.r
        return "2024-%02d-%02dT%02d:%02d:%02dZ" % (r.randint(1, 12), r.randint(1, 28),
                                                  r.randint(0, 23), r.randint(0, 59),
                                                  r.randint(0, 59))

    def hexid(self, bits=64):
        return "%0*x" % (bits // 4, self.r.getrandbits(bits))

    def person(self):
        r = self.r
        f, l = r.choice(FIRST), r.choice(LAST)
        return f, l, "%s.%s%d@%s" % (f, l, r.randint(1, 99), r.choice(DOMAINS))

    def money(self, lo, hi):
        return "%d.%02d" % (self.r.randint(lo, hi), self.r.randint(0, 99))

    def ua(self):
        os_, _ = self.r.choice(OSES)
        return "Mozilla/5.0 (%s) AppleWebKit/537.36 (KHTML, like Gecko) %s" % (
            os_, self.r.choice(BROWSERS))

    def b64(self, n):
        bits = self.r.getrandbits(6 * n)
        return "".join(B64[(bits >> (6 * i)) & 63] for i in range(n))

    # --- one head per prefix: the record without its last field and closing brace -------------
    def h_user(self, i):
        r = self.r
        f, l, mail = self.person()
        city, cc, tz = r.choice(CITIES)
        return ('{"id":%d,"username":"%s_%s%d","email":"%s","name":"%s %s","created_at":"%s",'
                '"country":"%s","city":"%s","plan":"%s","verified":%s,"prefs":{"lang":"%s",'
                '"tz":"%s","newsletter":%s}' % (
                    i, f, l, r.randint(1, 999), mail, f.title(), l.title(), self.ts(), cc, city,
                    r.choice(PLANS), r.choice(("true", "false")), r.choice(LANGS), tz,
                    r.choice(("true", "false"))))

    def h_session(self, i):
        r = self.r
        return ('{"sid":"%s","user_id":%d,"ip":"10.%d.%d.%d","created":"%s","expires":"%s",'
                '"csrf":"%s","roles":["%s"],"ua":"%s"' % (
                    self.hexid(128), r.randint(1, 10_000_000), r.randint(0, 255),
                    r.randint(0, 255), r.randint(1, 254), self.ts(), self.ts(), self.hexid(64),
                    r.choice(ROLES), self.ua()))

    def h_order(self, i):
        r = self.r
        items = ",".join('{"sku":"SKU-%05d","qty":%d,"price":%s}' % (
            r.randint(1, 99999), r.randint(1, 4), self.money(1, 199))
            for _ in range(r.randint(1, 3)))
        return ('{"order_id":"ORD-%010d","user_id":%d,"status":"%s","currency":"%s","total":%s,'
                '"items":[%s],"created_at":"%s"' % (
                    i, r.randint(1, 10_000_000), r.choice(ORDER_STATUS), r.choice(CURRENCIES),
                    self.money(5, 900), items, self.ts()))

    def h_product(self, i):
        r = self.r
        return ('{"sku":"SKU-%05d","title":"%s %s %s","brand":"%s","category":"%s","price":%s,'
                '"currency":"%s","stock":%d,"rating":%d.%d,"tags":["%s","%s"]' % (
                    i % 100000, r.choice(BRANDS), r.choice(ADJ), r.choice(NOUN), r.choice(BRANDS),
                    r.choice(CATEGORIES), self.money(2, 499), r.choice(CURRENCIES),
                    r.randint(0, 5000), r.randint(1, 4), r.randint(0, 9), r.choice(ADJ),
                    r.choice(CATEGORIES)))

    def h_cart(self, i):
        r = self.r
        items = ",".join('{"sku":"SKU-%05d","qty":%d}' % (r.randint(1, 99999), r.randint(1, 5))
                         for _ in range(r.randint(1, 4)))
        return ('{"cart_id":"%s","user_id":%d,"items":[%s],"currency":"%s","updated_at":"%s",'
                '"coupon":%s' % (self.hexid(64), r.randint(1, 10_000_000), items,
                                 r.choice(CURRENCIES), self.ts(),
                                 r.choice(('null', '"SPRING10"', '"FREESHIP"'))))

    def h_invoice(self, i):
        r = self.r
        f, l, mail = self.person()
        return ('{"invoice_no":"INV-2024-%08d","customer":{"name":"%s %s","email":"%s"},'
                '"net":%s,"vat_rate":%d,"currency":"%s","issued":"%s","due":"%s","paid":%s' % (
                    i, f.title(), l.title(), mail, self.money(10, 5000), r.choice((0, 7, 19, 20)),
                    r.choice(CURRENCIES), self.ts(), self.ts(), r.choice(("true", "false"))))

    def h_payment(self, i):
        r = self.r
        return ('{"payment_id":"pay_%s","order_id":"ORD-%010d","method":"%s","amount":%s,'
                '"currency":"%s","status":"%s","card_last4":"%04d","created_at":"%s"' % (
                    self.hexid(96), r.randint(0, 10_000_000), r.choice(PAY_METHODS),
                    self.money(1, 900), r.choice(CURRENCIES),
                    r.choice(("succeeded", "succeeded", "failed", "pending")),
                    r.randint(0, 9999), self.ts()))

    def h_address(self, i):
        r = self.r
        f, l, _ = self.person()
        city, cc, _ = r.choice(CITIES)
        return ('{"user_id":%d,"type":"%s","name":"%s %s","line1":"%d %s","city":"%s",'
                '"postal_code":"%05d","country":"%s","default":%s' % (
                    r.randint(1, 10_000_000), r.choice(("shipping", "billing")), f.title(),
                    l.title(), r.randint(1, 300), r.choice(STREETS), city, r.randint(1000, 99999),
                    cc, r.choice(("true", "false"))))

    def h_review(self, i):
        r = self.r
        return ('{"review_id":%d,"sku":"SKU-%05d","user_id":%d,"stars":%d,"title":"%s %s",'
                '"verified_purchase":%s,"helpful":%d,"created_at":"%s"' % (
                    i, r.randint(1, 99999), r.randint(1, 10_000_000), r.randint(1, 5),
                    r.choice(ADJ).title(), r.choice(NOUN), r.choice(("true", "false")),
                    r.randint(0, 250), self.ts()))

    def h_inventory(self, i):
        r = self.r
        return ('{"sku":"SKU-%05d","warehouse":"WH-%s-%02d","on_hand":%d,"reserved":%d,'
                '"reorder_point":%d,"bin":"%s-%02d-%02d","updated_at":"%s"' % (
                    r.randint(1, 99999), r.choice(CITIES)[1], r.randint(1, 12),
                    r.randint(0, 10000), r.randint(0, 500), r.randint(10, 200),
                    r.choice("ABCDEFGH"), r.randint(1, 40), r.randint(1, 12), self.ts()))

    def h_shipment(self, i):
        r = self.r
        city, cc, _ = r.choice(CITIES)
        return ('{"shipment_id":"SHP-%010d","order_id":"ORD-%010d","carrier":"%s",'
                '"tracking":"1Z%s","status":"%s","to":{"city":"%s","country":"%s"},'
                '"weight_g":%d,"shipped_at":"%s"' % (
                    i, r.randint(0, 10_000_000), r.choice(CARRIERS), self.hexid(64).upper(),
                    r.choice(("label_created", "in_transit", "out_for_delivery", "delivered")),
                    city, cc, r.randint(50, 20000), self.ts()))

    def h_coupon(self, i):
        r = self.r
        return ('{"code":"%s%d","kind":"%s","value":%d,"min_order":%s,"currency":"%s",'
                '"valid_from":"%s","valid_until":"%s","max_uses":%d,"used":%d' % (
                    r.choice(("SPRING", "SUMMER", "WELCOME", "VIP", "FREESHIP")),
                    r.randint(5, 50), r.choice(("percent", "fixed")), r.randint(5, 50),
                    self.money(0, 100), r.choice(CURRENCIES), self.ts(), self.ts(),
                    r.randint(1, 10000), r.randint(0, 1000)))

    def h_notification(self, i):
        r = self.r
        return ('{"id":"ntf_%s","user_id":%d,"channel":"%s","template":"%s","read":%s,'
                '"priority":"%s","sent_at":"%s"' % (
                    self.hexid(64), r.randint(1, 10_000_000), r.choice(CHANNELS),
                    r.choice(("order_shipped", "password_reset", "weekly_digest", "price_drop",
                              "new_login")), r.choice(("true", "false")), r.choice(PRIORITIES),
                    self.ts()))

    def h_message(self, i):
        r = self.r
        return ('{"msg_id":"%s","thread_id":%d,"from":%d,"to":%d,"sent_at":"%s","edited":%s,'
                '"attachments":%d' % (
                    self.hexid(64), r.randint(1, 1_000_000), r.randint(1, 10_000_000),
                    r.randint(1, 10_000_000), self.ts(), r.choice(("true", "false")),
                    r.randint(0, 3)))

    def h_event(self, i):
        r = self.r
        return ('{"event":"%s","anonymous_id":"%s","user_id":%d,"page":"%s","referrer":"%s",'
                '"ts":"%s","props":{"value":%s,"currency":"%s","ab":"%s"}' % (
                    r.choice(EVENTS), self.hexid(96), r.randint(1, 10_000_000), r.choice(PAGES),
                    r.choice(("https://www.example.com/", "https://search.example/?q=deals",
                              "", "https://social.example/feed")),
                    self.ts(), self.money(0, 300), r.choice(CURRENCIES), r.choice("AB")))

    def h_device(self, i):
        r = self.r
        os_, kind = r.choice(OSES)
        return ('{"device_id":"%s","user_id":%d,"kind":"%s","os":"%s","app_version":"%d.%d.%d",'
                '"push_token":"%s","last_seen":"%s"' % (
                    self.hexid(128), r.randint(1, 10_000_000), kind, os_, r.randint(1, 9),
                    r.randint(0, 30), r.randint(0, 99), self.b64(43), self.ts()))

    def h_subscription(self, i):
        r = self.r
        return ('{"sub_id":"sub_%s","user_id":%d,"plan":"%s","interval":"%s","status":"%s",'
                '"price":%s,"currency":"%s","current_period_end":"%s","cancel_at_period_end":%s' % (
                    self.hexid(64), r.randint(1, 10_000_000), r.choice(PLANS),
                    r.choice(("month", "year")), r.choice(("active", "trialing", "past_due",
                                                           "canceled")),
                    self.money(0, 99), r.choice(CURRENCIES), self.ts(),
                    r.choice(("true", "false"))))

    def h_ticket(self, i):
        r = self.r
        f, l, mail = self.person()
        return ('{"ticket":%d,"requester":"%s","subject":"%s with my %s","status":"%s",'
                '"priority":"%s","assignee":"%s","opened_at":"%s"' % (
                    i, mail, r.choice(("Problem", "Question", "Issue", "Help needed")),
                    r.choice(NOUN), r.choice(TICKET_STATUS), r.choice(PRIORITIES),
                    r.choice(FIRST), self.ts()))

    def h_account(self, i):
        r = self.r
        f, l, mail = self.person()
        return ('{"account_id":"acct_%s","owner":"%s","balance":%s,"currency":"%s",'
                '"credit_limit":%d,"status":"%s","opened":"%s","iban":"DE%02d%018d"' % (
                    self.hexid(64), mail, self.money(0, 50000), r.choice(CURRENCIES),
                    r.choice((0, 500, 1000, 5000)), r.choice(("active", "frozen", "closed")),
                    self.ts(), r.randint(10, 99), r.randint(0, 10 ** 18 - 1)))

    def h_audit(self, i):
        r = self.r
        return ('{"ts":"%s","level":"%s","actor":%d,"action":"%s","resource":"%s/%d",'
                '"ip":"192.168.%d.%d","request_id":"%s"' % (
                    self.ts(), r.choice(LEVELS), r.randint(1, 10_000_000), r.choice(ACTIONS),
                    r.choice(PREFIXES), r.randint(1, 10_000_000), r.randint(0, 255),
                    r.randint(1, 254), self.hexid(128)))

    def value(self, p, i):
        """The record of key <PREFIXES[p]>:<i>: 200-500 bytes, ASCII."""
        target = self.r.randint(200, 500)
        head = self.head[p](i)
        name = self.tail[p]
        # ,"name":"..."} around the fill; a long head keeps a short fill (and passes target)
        room = max(target - len(head) - len(name) - 7, 8)
        if p == 1:  # session blobs end in opaque serialized state
            fill = self.b64(room)
        else:
            off = self.text.index(" ", self.r.randrange(0, len(self.text) - 700)) + 1
            fill = self.text[off:off + room].rstrip().ljust(room, ".")
        return '%s,"%s":"%s"}' % (head, name, fill)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stats", help="write keys=... key_bytes=... value_bytes=... here")
    a = ap.parse_args()
    g = Gen(a.seed)
    out = sys.stdout.buffer
    key_bytes = value_bytes = 0
    batch = []
    for i in range(a.keys):
        p = i % 20
        key = "%s:%012d" % (PREFIXES[p], i // 20)
        v = g.value(p, i // 20)
        key_bytes += len(key)
        value_bytes += len(v)
        batch.append("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(key), key, len(v), v))
        if len(batch) == 2000:
            out.write("".join(batch).encode())
            batch.clear()
    out.write("".join(batch).encode())
    out.flush()
    if a.stats:
        with open(a.stats, "w") as f:
            f.write("keys=%d key_bytes=%d value_bytes=%d\n" % (a.keys, key_bytes, value_bytes))


if __name__ == "__main__":
    main()
