"""Value pools, phrasing templates and conversation topics for the synthetic generator.

Data only: :mod:`supersede_env.core.synthetic` decides *what* happens in an episode (the gold trajectory)
and uses this module to say it. Everything here is plain, reviewable text.

Templates are ``str.format`` strings with these placeholders:

- ``{v}`` the slot's value (new value for an update, restated value for a reinforcement),
  ``{a_v}`` the same with its indefinite article ("an Audi A4");
- ``{old}`` the value being replaced (explicit updates) or a superseded value (stale echoes);
- ``{d}`` / ``{a_d}`` a decoy value, which must never become the slot's value;
- ``{who}`` another person ("my sister"), for decoys about someone else's value.

Rules the tests enforce, so that a grader can match values and no value is ambiguous:

- every update / create / reinforce template contains ``{v}`` or ``{a_v}``; every decoy ``{d}``
  or ``{a_d}``; every echo and explicit update ``{old}``;
- template and topic text contains no digits (the only exception is the "5K" of the 5K slot), so
  a number in a session is always a slot or decoy value;
- no pool value occurs, word-bounded, in any template or topic text;
- every slot type's pool has at least 50 values.

Phrasing tiers (used by the difficulty levels): ``explicit`` names the change outright, usually
with the old value ("I traded in my Civic for a Kia"); ``plain`` states the new value as current
("I drive a Kia now"); ``implicit`` only implies the change in passing ("Still getting used to where
everything is in the new Kia").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# -- value pools -------------------------------------------------------------------------------
CITIES: tuple[str, ...] = (
    "Portland", "Denver", "Atlanta", "Chicago", "Seattle", "Boston", "Phoenix", "Tucson",
    "Albuquerque", "Sacramento", "Oakland", "Pittsburgh", "Cleveland", "Cincinnati", "Columbus",
    "Milwaukee", "Minneapolis", "Omaha", "Tulsa", "Memphis", "Nashville", "Louisville", "Raleigh",
    "Richmond", "Baltimore", "Philadelphia", "Hartford", "Burlington", "Albany", "Rochester",
    "Syracuse", "Detroit", "Indianapolis", "Spokane", "Boise", "Reno", "Fresno", "Anchorage",
    "Honolulu", "Tampa", "Orlando", "Savannah", "Charleston", "Knoxville", "Chattanooga",
    "Lexington", "Asheville", "Durham", "Norfolk", "Dallas", "Houston", "San Antonio", "El Paso",
    "Kansas City", "St. Louis", "Des Moines", "Salt Lake City", "Tacoma", "Ann Arbor", "Santa Fe",
    "Bozeman", "Duluth",
)

DESTINATIONS: tuple[str, ...] = (
    "Lisbon", "Porto", "Seville", "Valencia", "Barcelona", "Madrid", "Marseille", "Lyon",
    "Bordeaux", "Florence", "Naples", "Palermo", "Venice", "Bologna", "Dubrovnik", "Ljubljana",
    "Vienna", "Prague", "Budapest", "Krakow", "Copenhagen", "Stockholm", "Oslo", "Bergen",
    "Helsinki", "Tallinn", "Riga", "Reykjavik", "Dublin", "Edinburgh", "Galway", "Amsterdam",
    "Bruges", "Zurich", "Lucerne", "Salzburg", "Munich", "Berlin", "Hamburg", "Athens", "Crete",
    "Santorini", "Istanbul", "Marrakech", "Cairo", "Tokyo", "Kyoto", "Osaka", "Seoul", "Busan",
    "Taipei", "Hanoi", "Bangkok", "Bali", "Singapore", "Sydney", "Melbourne", "Auckland",
    "Queenstown", "Vancouver", "Montreal", "Quebec City", "Mexico City", "Oaxaca", "Havana",
    "Cartagena", "Lima", "Cusco", "Buenos Aires", "Santiago",
)

EMPLOYERS: tuple[str, ...] = (
    "Harborline Logistics", "Brightwave Analytics", "Northpeak Insurance", "Cobaltree Software",
    "Ferncastle Health", "Bluestem Energy", "Quillmark Publishing", "Ravenmoor Games",
    "Silverbirch Bank", "Tidewater Engineering", "Oakhaven Foods", "Lumenforge Robotics",
    "Pinecrest Consulting", "Marigold Media", "Ironvale Manufacturing", "Clearspring Water",
    "Redwing Aerospace", "Starling Pharmaceuticals", "Kestrel Security", "Meadowlark Travel",
    "Copperline Telecom", "Driftwood Design", "Evergold Retail", "Foxglove Labs",
    "Granitefall Partners", "Hollowell Architects", "Juniper Bay Research", "Kingfisher Freight",
    "Larkspur Education", "Moonstone Studios", "Nettlefield Farms", "Obsidian Cloud",
    "Paloverde Solar", "Quarrystone Construction", "Rosewater Hotels", "Saltmarsh Biotech",
    "Thistledown Insurance", "Umberlight Films", "Vantage Ridge Capital", "Willowbrook Clinics",
    "Yarrow Systems", "Zephyrline Airlines", "Amberfield Logistics", "Blackthorn Legal",
    "Cinderpath Games", "Dovetail Furniture", "Emberly Foods", "Fieldstone Realty",
    "Glasswing Optics", "Heronsgate Media", "Inkwell Press", "Jadeport Shipping",
    "Keystone Orchard Co", "Lanternfish Data", "Mossgrove Outdoors", "Northwind Robotics",
    "Oakmere Bank", "Pebblebrook Toys", "Quicksilver Payments", "Riverbend Health",
)

VEHICLES: tuple[str, ...] = (
    "Subaru Outback", "Subaru Forester", "Subaru Crosstrek", "Mazda CX-5", "Mazda CX-30",
    "Mazda Miata", "Honda Civic", "Honda Accord", "Honda CR-V", "Honda Fit", "Honda Odyssey",
    "Toyota Corolla", "Toyota Camry", "Toyota RAV4", "Toyota Prius", "Toyota Tacoma",
    "Toyota Highlander", "Ford F-150", "Ford Focus", "Ford Escape", "Ford Mustang", "Ford Bronco",
    "Chevy Bolt", "Chevy Malibu", "Chevy Equinox", "Kia Soul", "Kia Sorento", "Kia Niro",
    "Kia Telluride", "Hyundai Elantra", "Hyundai Kona", "Hyundai Ioniq", "Volkswagen Golf",
    "Volkswagen Jetta", "Volkswagen Tiguan", "Nissan Leaf", "Nissan Rogue", "Nissan Altima",
    "Tesla Model Y", "Volvo XC60", "BMW X3", "Audi A4", "Audi Q5", "Jeep Wrangler",
    "Jeep Cherokee", "Lexus RX", "Mini Cooper", "Dodge Charger", "GMC Sierra", "Buick Encore",
    "Rivian R1T", "Polestar Two", "Acura Integra", "Genesis GV70", "Infiniti Q50",
)

PEOPLE: tuple[str, ...] = (
    "Dana Whitfield", "Marcus Oyelaran", "Priya Raman", "Tomasz Nowak", "Elena Vasquez",
    "Hiro Tanaka", "Grace Okonkwo", "Liam Gallagher-Price", "Sofia Lindqvist", "Omar Haddad",
    "Ingrid Solberg", "Rafael Moreno", "Keiko Yamada", "Desmond Achebe", "Lucia Ferraro",
    "Nikhil Bose", "Hannah Kowalczyk", "Mateo Alvarez", "Yara Nasser", "Felix Brandt",
    "Amara Eze", "Connor Walsh", "Mei Lin Chen", "Tobias Richter", "Zainab Qureshi",
    "Gabriel Duarte", "Freya Mackenzie", "Arjun Mehta", "Celeste Moreau", "Dmitri Volkov",
    "Naomi Adeyemi", "Henrik Dahl", "Rosalind Pierce", "Kofi Mensah", "Valentina Ricci",
    "Soren Eriksen", "Imani Brooks", "Julian Park", "Beatriz Santos", "Ewan Fraser",
    "Leila Farahani", "Pavel Horak", "Wren Calloway", "Tariq Aziz", "Marguerite Leclerc",
    "Ibrahim Diallo", "Clara Hoffmann", "Declan O'Rourke", "Anjali Iyer", "Rhys Llewellyn",
    "Sakura Ito", "Bruno Cardoso", "Ottilie Baker", "Emeka Nwosu", "Greta Vogel",
    "Ravi Subramanian", "Ines Carvalho", "Malcolm Thorne", "Yusuf Demir", "Annika Berg",
)

BOOK_TITLES: tuple[str, ...] = (
    "The Salt Orchard", "A Map of Small Fires", "The Glass Cartographer", "Winter at Larkhill",
    "The Lighthouse Accountant", "Nine Rooms of Rain", "The Cartwright Inheritance",
    "Songs for the Drowned City", "The Paper Astronomer", "Under the Copper Sky",
    "The Last Ferry to Orla", "The Beekeeper's Ledger", "Ashes of the Marigold Court",
    "The Velvet Observatory", "Harvest of Lanterns", "The Ninth Orchard", "Tidewater Hymns",
    "The Cold Archivist", "Letters from Vellmar", "The Moth Collector's Wife",
    "A Season of Iron Birds", "The Silent Ropewalk", "Glass Gardens of Ostry",
    "The Weathervane Society", "A Hundred Borrowed Names", "The Quiet Cartel", "Riverglass",
    "The Ossuary Gardener", "Bright Dust", "The Saltwater Parliament", "Kingdom of Small Hours",
    "The Unfinished Atlas", "The Tin Choir", "Ember and Anchor", "The Orchardist's Error",
    "A Field Guide to Leaving", "The Map Thief of Calder", "Lanterns over Marrow Bay",
    "The Sleeping Foundry", "Second Light", "The Gilded Almanac", "Stones of Hollin Moor",
    "The Clockless Town", "A Winter Without Wolves", "The Violet Engine", "Paperbark",
    "The Heron Sisters", "North of the Last Road", "The Copper Psalm", "The Honey Thieves",
    "Vesper Street", "The Alabaster Crossing", "A Grammar of Tides", "The Lantern Keeper's Son",
    "Fathom and Flint", "The Glasshouse Letters", "The Rook's Apprentice", "Midnight at Quarry Hill",
    "The Starling Accord", "Ironwood Summer",
)

PHONES: tuple[str, ...] = (
    "Pixel 8", "Pixel 8 Pro", "Pixel 7a", "Pixel 7 Pro", "Pixel 6a", "Pixel Fold", "iPhone 15",
    "iPhone 15 Pro Max", "iPhone 14 Plus", "iPhone 13 mini", "iPhone SE", "iPhone 12",
    "iPhone 11", "iPhone XR", "Galaxy S24", "Galaxy S23 Ultra", "Galaxy S22", "Galaxy S21 FE",
    "Galaxy A54", "Galaxy A15", "Galaxy Z Flip5", "Galaxy Z Fold5", "Galaxy Note20",
    "OnePlus 12", "OnePlus 11", "OnePlus Nord", "OnePlus Open", "Moto G Power", "Moto G Stylus",
    "Moto Edge", "Motorola Razr", "Sony Xperia 1 V", "Sony Xperia 10 V", "Xiaomi 14",
    "Redmi Note 13", "Fairphone 5", "Fairphone 4", "Asus Zenfone 10", "Asus ROG Phone 8",
    "Honor Magic6", "Oppo Find X7", "Vivo X100", "Nokia G42", "Nokia XR21", "Huawei P60",
    "Huawei Mate 60", "Realme GT5", "Poco F6", "Pixel 5", "BlackBerry KEYone", "Galaxy S10",
    "Nokia 8110",
)


def _counts(low: int, high: int) -> tuple[str, ...]:
    return tuple(str(n) for n in range(low, high + 1))


def _money(low: int, high: int, step: int) -> tuple[str, ...]:
    return tuple(f"${n:,}" for n in range(low, high + 1, step))


def _clock(first_hour: int, last_hour: int, half: str) -> tuple[str, ...]:
    # "7:30 pm" style: what people write, and what a grader can parse unambiguously
    return tuple(f"{h}:{m:02d} {half}" for h in range(first_hour, last_hour + 1) for m in range(0, 60, 5))


def _minutes(low: int, high: int, step: int) -> tuple[str, ...]:
    return tuple(f"{n} minutes" for n in range(low, high + 1, step))


def _race_times() -> tuple[str, ...]:
    # ordered slowest last: index order = time order, used by the "decreasing" (improving) slot
    return tuple(f"{m} minutes and {s} seconds" for m in range(18, 34) for s in range(5, 60, 5))


_DAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")


def _day_sets() -> tuple[str, ...]:
    """Every set of one to three weekdays, rendered "Mondays", "Mondays and Thursdays",
    "Mondays, Wednesdays and Fridays" (63 values)."""
    out: list[str] = list(_DAYS)
    n = len(_DAYS)
    out += [f"{_DAYS[i]} and {_DAYS[j]}" for i in range(n) for j in range(i + 1, n)]
    out += [
        f"{_DAYS[i]}, {_DAYS[j]} and {_DAYS[k]}"
        for i in range(n) for j in range(i + 1, n) for k in range(j + 1, n)
    ]
    return tuple(out)


DAY_SETS = _day_sets()

# Other people, for decoys about someone else's value. Lower case: a template that starts with
# {who} is capitalised when it opens a sentence.
OTHER_PEOPLE: tuple[str, ...] = (
    "my sister", "my brother", "my neighbor", "a coworker", "my best friend", "my cousin",
    "my mom", "my dad", "an old friend of mine", "my roommate from college",
)

# -- slot types ---------------------------------------------------------------------------------
KINDS: tuple[str, ...] = (
    "place", "employer", "vehicle", "person", "count", "money", "time_of_day", "duration",
    "schedule", "item",
)
PHRASING_TIERS: tuple[str, ...] = ("explicit", "plain", "implicit")
DECOY_KINDS: tuple[str, ...] = ("other_person", "hypothetical", "negation", "past")


@dataclass(frozen=True, eq=False)  # catalogue entries: identity is equality (and cheap)
class SlotType:
    """One kind of fact about the user that can change over a conversation.

    ``order`` constrains update chains: ``"increasing"`` / ``"decreasing"`` follow the pool's order
    (a count of countries only grows, a personal best only improves); ``None`` is free.
    ``groups`` name facts that depend on each other (a new job changes the manager); two slot types
    sharing a group never appear in one episode, so an unchanged slot is never implicitly stale.
    """

    name: str
    kind: str
    pool: tuple[str, ...]
    question: str
    abstain: str  # completes "You never mentioned ..."
    create: Mapping[str, tuple[str, ...]]  # tier -> templates
    update: Mapping[str, tuple[str, ...]]  # tier -> templates
    reinforce: tuple[str, ...]
    decoys: Mapping[str, tuple[str, ...]]  # decoy kind -> templates
    echo: tuple[str, ...] = ()
    order: str | None = None
    groups: tuple[str, ...] = ()
    article: bool = False  # whether templates use {a_v}/{a_d}

    def decoy_kinds(self) -> tuple[str, ...]:
        return tuple(k for k in DECOY_KINDS if self.decoys.get(k))


def _tiers(explicit: tuple[str, ...] = (), plain: tuple[str, ...] = (),
           implicit: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    return {k: v for k, v in (("explicit", explicit), ("plain", plain), ("implicit", implicit)) if v}


def _decoys(other_person: tuple[str, ...] = (), hypothetical: tuple[str, ...] = (),
            negation: tuple[str, ...] = (), past: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    pairs = (("other_person", other_person), ("hypothetical", hypothetical),
             ("negation", negation), ("past", past))
    return {k: v for k, v in pairs if v}


SLOT_TYPES: tuple[SlotType, ...] = (
    # ---------------------------------------------------------------- place
    SlotType(
        name="home_city", kind="place", pool=CITIES, groups=("home",),
        question="Which city do I live in now?",
        abstain="which city you live in",
        create=_tiers(
            plain=("I live in {v}.", "I've been living in {v} for a while now."),
            implicit=("Here in {v} it has rained all week.",
                      "The farmers market here in {v} just opened for the season."),
        ),
        update=_tiers(
            explicit=("I moved from {old} to {v} last month.",
                      "We finally left {old}; we live in {v} now."),
            plain=("I live in {v} now.", "I just finished moving to {v}."),
            implicit=("Since the move to {v}, my mornings start a lot earlier.",
                      "Now that I'm settled in {v}, I finally have time for this.",
                      "Still unpacking boxes at the new place in {v}, so bear with me.",
                      "The neighbors have been really welcoming since we arrived in {v}."),
        ),
        reinforce=("{v} has been lovely lately.", "I'm still in {v}, for what it's worth.",
                   "There's a great little bookshop near me in {v}."),
        decoys=_decoys(
            other_person=("{who} just moved to {d}, so I'll be visiting a lot.",
                          "{who} lives in {d} and keeps telling me to come visit."),
            hypothetical=("I sometimes daydream about moving to {d}, but it's not happening.",
                          "If rents were lower I might consider {d} someday."),
            negation=("I looked at apartments in {d}, but I decided not to move there.",
                      "I never did move to {d}; that plan fell apart."),
            past=("Years ago I spent a summer living in {d}.",
                  "I went to college in {d}, a long time ago."),
        ),
        echo=("Back when I lived in {old}, I barely needed a car.",
              "I still miss the bakeries from my time in {old}."),
    ),
    SlotType(
        name="trip_destination", kind="place", pool=DESTINATIONS,
        question="Where am I going on my summer trip?",
        abstain="where you are going on your summer trip",
        create=_tiers(
            plain=("We're going to {v} for our summer vacation.", "Our big trip this year is to {v}."),
            implicit=("I've started a packing list for {v}.",
                      "I'm brushing up on a few phrases before the trip to {v}."),
        ),
        update=_tiers(
            explicit=("We changed our summer trip from {old} to {v}.",
                      "The {old} trip is off; we booked {v} instead."),
            plain=("Our summer trip is to {v} now.", "We rebooked the vacation, so it's {v} this summer."),
            implicit=("Now that the flights to {v} are booked, I need a good guidebook.",
                      "I've redone my packing list for {v}, which is a very different climate.",
                      "My partner is already planning day trips around {v} for the summer."),
        ),
        reinforce=("Still counting down to {v}.", "I keep reading about restaurants in {v} for the trip.",
                   "The {v} trip is still on."),
        decoys=_decoys(
            other_person=("{who} is going to {d} this summer and won't stop talking about it.",
                          "{who} just got back from {d} with a suitcase full of souvenirs."),
            hypothetical=("Maybe next year we'll do {d} instead.", "I'd love to see {d} one day."),
            negation=("We thought about {d} for the summer, but we ruled it out.",),
            past=("We went to {d} a few years ago and loved it.",),
        ),
        echo=("I had already bought a guidebook for {old} before we changed plans.",),
    ),
    # ---------------------------------------------------------------- employer
    SlotType(
        name="employer", kind="employer", pool=EMPLOYERS, groups=("work",),
        question="Which company do I work for now?",
        abstain="where you work",
        create=_tiers(
            plain=("I work at {v}.", "I'm an analyst at {v}."),
            implicit=("Things at {v} have been hectic this quarter.",
                      "My team at {v} has a big deadline coming up."),
        ),
        update=_tiers(
            explicit=("I left {old} and started at {v} this month.",
                      "After several years at {old}, I accepted an offer from {v}."),
            plain=("I work at {v} now.", "I just started a new job at {v}."),
            implicit=("My first week at {v} was a blur of onboarding.",
                      "I'm still learning everyone's names at {v}.",
                      "My new badge from {v} finally arrived, so it's official."),
        ),
        reinforce=("Work at {v} is steady these days.", "I'm still at {v}.",
                   "We had a team lunch at {v} yesterday."),
        decoys=_decoys(
            other_person=("{who} just got hired at {d}.", "{who} works at {d} and loves it."),
            hypothetical=("A recruiter from {d} reached out, but I haven't replied.",
                          "I might apply to {d} if they ever post the right role."),
            negation=("I turned down the offer from {d}.", "I didn't take the job at {d} in the end."),
            past=("My first summer job was at {d}.", "I interned at {d} back in school."),
        ),
        echo=("I don't miss the long meetings at {old}.",
              "Back when I was at {old}, the office was much quieter."),
    ),
    # ---------------------------------------------------------------- vehicle
    SlotType(
        name="car", kind="vehicle", pool=VEHICLES, article=True,
        question="What car do I drive now?",
        abstain="what car you drive",
        create=_tiers(
            plain=("I drive {a_v}.", "My car is {a_v}."),
            implicit=("My {v} needs new tires before winter.", "The {v} is due for an oil change soon."),
        ),
        update=_tiers(
            explicit=("I traded in my {old} for {a_v}.", "I sold the {old} and bought {a_v}."),
            plain=("I drive {a_v} now.", "I just bought {a_v}."),
            implicit=("The new {v} handles much better in the rain.",
                      "Still getting used to where everything is in the {v} I just got.",
                      "I finally set up the phone mount in my new {v}."),
        ),
        reinforce=("The {v} has been running great.", "I'm still driving the {v}.",
                   "I took the {v} through the car wash this morning."),
        decoys=_decoys(
            other_person=("{who} just bought {a_d}.", "{who} drives {a_d} and swears by it."),
            hypothetical=("I test-drove {a_d} for fun, but I'm not buying anything yet.",
                          "I've been eyeing {a_d} for someday."),
            negation=("I almost bought {a_d}, but I walked away from the deal.",
                      "The dealer kept pushing {a_d} on me; I said no."),
            past=("My first car was {a_d}.", "In college I drove {a_d} that barely ran."),
        ),
        echo=("My old {old} never had heated seats.", "I don't miss the tiny trunk of the {old}."),
    ),
    # ---------------------------------------------------------------- person
    SlotType(
        name="manager", kind="person", pool=PEOPLE, groups=("work",),
        question="Who is my manager now?",
        abstain="who your manager is",
        create=_tiers(
            plain=("My manager is {v}.", "I report to {v} at work."),
            implicit=("{v}, my manager, wants the quarterly report from me soon.",
                      "I have my weekly check-in with my boss, {v}, this afternoon."),
        ),
        update=_tiers(
            explicit=("{old} left the team, so now I report to {v}.",
                      "My manager changed from {old} to {v}."),
            plain=("My new manager is {v}.", "I report to {v} now."),
            implicit=("Since {v} took over the team, our standups got shorter.",
                      "My first one-on-one with {v} as my new boss went well.",
                      "{v} has been running our team meetings since the reorg put me under them."),
        ),
        reinforce=("{v} is still my manager, thankfully.", "{v} gave me good feedback at work this week."),
        decoys=_decoys(
            other_person=("{who} has a manager named {d} who sounds exhausting.",
                          "{who} reports to someone called {d} at another company."),
            hypothetical=("There's talk that {d} might take over my team next year, but nothing is decided.",),
            negation=("{d} was supposed to become my manager, but that fell through.",),
            past=("My very first boss, {d}, taught me a lot.",),
        ),
        echo=("Back when {old} ran the team, our meetings always ran long.",),
    ),
    SlotType(
        name="doctor", kind="person", pool=PEOPLE,
        question="Who is my doctor now?",
        abstain="who your doctor is",
        create=_tiers(
            plain=("My doctor is Dr. {v}.", "I see Dr. {v} for my checkups."),
            implicit=("Dr. {v} told me at my last checkup to drink more water.",
                      "I have a physical with Dr. {v} next week, my usual doctor."),
        ),
        update=_tiers(
            explicit=("I switched doctors from Dr. {old} to Dr. {v}.",
                      "Dr. {old} retired, so I see Dr. {v} now."),
            plain=("My new doctor is Dr. {v}.", "I see Dr. {v} for checkups now."),
            implicit=("At my first appointment with my new doctor, Dr. {v}, we went over my whole history.",
                      "It's much easier to get appointments with Dr. {v} than at my old clinic.",
                      "Dr. {v} has already transferred my records over from my old doctor."),
        ),
        reinforce=("Dr. {v} is still my doctor.", "Dr. {v} said my bloodwork looked fine."),
        decoys=_decoys(
            other_person=("{who} sees Dr. {d} and recommends the practice.",),
            hypothetical=("A friend suggested I switch to Dr. {d}, but I haven't.",),
            negation=("I called Dr. {d}'s office, but they aren't taking new patients, so I'm not switching.",),
            past=("My childhood doctor was Dr. {d}.",),
        ),
        echo=("Back when I saw Dr. {old}, the waiting room was always packed.",),
    ),
    SlotType(
        name="piano_teacher", kind="person", pool=PEOPLE,
        question="Who is my piano teacher now?",
        abstain="who your piano teacher is",
        create=_tiers(
            plain=("I take piano lessons with {v}.", "My piano teacher is {v}."),
            implicit=("{v} assigned me a new piece at my piano lesson.",
                      "My piano lesson with {v} ran long this week."),
        ),
        update=_tiers(
            explicit=("I switched piano teachers from {old} to {v}.",
                      "{old} moved away, so my piano teacher is {v} now."),
            plain=("My piano teacher is {v} now.", "I started lessons with a new piano teacher, {v}."),
            implicit=("{v} has a completely different approach to scales than my last teacher.",
                      "At my second piano lesson with {v}, we finally started on Chopin.",
                      "My new teacher {v} made me relearn how I sit at the piano."),
        ),
        reinforce=("Lessons with {v} are going well.", "{v} still says my left hand is lazy."),
        decoys=_decoys(
            other_person=("{who} takes piano lessons with {d}.",),
            hypothetical=("I've heard {d} is a great piano teacher; maybe someday.",),
            negation=("I had a trial lesson with {d}, but I didn't sign up.",),
            past=("My first piano teacher as a kid was {d}.",),
        ),
        echo=("{old} never made me practice scales this much.",),
    ),
    # ---------------------------------------------------------------- count
    SlotType(
        name="houseplants", kind="count", pool=_counts(3, 62),
        question="How many houseplants do I have now?",
        abstain="how many houseplants you have",
        create=_tiers(
            plain=("I have {v} houseplants.", "My apartment has {v} houseplants in it."),
            implicit=("I water my {v} houseplants every weekend.",
                      "I just bought fertilizer for my {v} houseplants."),
        ),
        update=_tiers(
            explicit=("I went from {old} to {v} houseplants this month.",
                      "My houseplant count changed from {old} to {v}."),
            plain=("I have {v} houseplants now.", "My houseplant count is {v} now."),
            implicit=("I reorganized the shelves, and there are {v} houseplants on them now.",
                      "After this month's repotting, I counted {v} houseplants.",
                      "The plant shelf holds exactly {v} houseplants after this month's changes."),
        ),
        reinforce=("All {v} of my houseplants survived my trip.", "Still {v} houseplants here."),
        decoys=_decoys(
            other_person=("{who} has {d} houseplants, which puts me to shame.",),
            hypothetical=("I'd love to have {d} houseplants someday.",),
            negation=("The shop had a bundle of {d} plants on sale, but I didn't buy it.",),
            past=("When I was a student I kept {d} plants alive in a dorm room.",),
        ),
        echo=("Back when I had {old} houseplants, the watering routine was different.",),
    ),
    SlotType(
        name="countries_visited", kind="count", pool=_counts(5, 64), order="increasing",
        question="How many countries have I visited so far?",
        abstain="how many countries you have visited",
        create=_tiers(
            plain=("I've been to {v} countries so far.", "My country count is {v}."),
            implicit=("My passport has stamps from {v} countries.",
                      "I keep a scratch map on my wall with {v} countries scratched off."),
        ),
        update=_tiers(
            explicit=("My country count went from {old} to {v} after this last trip.",
                      "That trip took me from {old} to {v} countries."),
            plain=("I've now visited {v} countries.", "My count is up to {v} countries now."),
            implicit=("With this trip, my travel map has {v} countries pinned on it.",
                      "That trip brought my total to {v} countries.",
                      "I scratched another spot off my map, so it shows {v} countries now."),
        ),
        reinforce=("Still at {v} countries; no trips lately.", "My count is holding at {v} countries."),
        decoys=_decoys(
            other_person=("{who} has been to {d} countries.",
                          "The travel blogger I follow has covered {d} countries."),
        ),
        echo=("I remember when my count was only {old} countries.",),
    ),
    SlotType(
        name="team_size", kind="count", pool=_counts(3, 62), groups=("work",),
        question="How many people are on my team now?",
        abstain="how many people are on your team",
        create=_tiers(
            plain=("There are {v} people on my team.", "My team has {v} people."),
            implicit=("Planning lunch for all {v} of us on the team is a headache.",
                      "I'm ordering holiday cards for the {v} people on my team."),
        ),
        update=_tiers(
            explicit=("My team went from {old} to {v} people after the reorg.",
                      "The reorg changed my team from {old} people to {v}."),
            plain=("My team has {v} people now.", "We're a team of {v} now."),
            implicit=("Booking a room for all {v} of us on the team is different after the reorg.",
                      "With {v} people on the team these days, standups feel different.",
                      "I redid the team rota for the {v} of us after the reorg."),
        ),
        reinforce=("Still {v} of us on the team.", "The team is steady at {v} people."),
        decoys=_decoys(
            other_person=("{who} works on a team of {d} people.",),
            hypothetical=("There's a proposal to resize us to {d} people, but it hasn't been approved.",),
            negation=("The reorg that would have made us a team of {d} got cancelled.",),
            past=("At my first job my team was {d} people.",),
        ),
        echo=("Back when the team was {old} people, meetings were simpler.",),
    ),
    # ---------------------------------------------------------------- money
    SlotType(
        name="rent", kind="money", pool=_money(900, 3850, 50), groups=("home",),
        question="How much is my monthly rent now?",
        abstain="how much your rent is",
        create=_tiers(
            plain=("My rent is {v} a month.", "I pay {v} a month in rent."),
            implicit=("Paying {v} in rent every month makes budgeting tight.",
                      "Once the {v} rent is paid each month, there's not much left over."),
        ),
        update=_tiers(
            explicit=("My rent went from {old} to {v} when I renewed the lease.",
                      "The landlord changed my rent from {old} to {v} a month."),
            plain=("My rent is {v} a month now.", "The new lease puts my rent at {v}."),
            implicit=("With the new lease at {v} a month, I'm redoing my budget.",
                      "After signing the renewal at {v}, I need to rethink takeout.",
                      "I set up the new automatic payment of {v} for rent this month."),
        ),
        reinforce=("Rent is still {v}, thankfully.", "I just paid this month's {v} rent."),
        decoys=_decoys(
            other_person=("{who} pays {d} a month for a smaller place.",),
            hypothetical=("A bigger apartment would be {d} a month, which I can't justify.",),
            negation=("The landlord floated raising it to {d}, but that never happened.",),
            past=("My first apartment was only {d} a month.",),
        ),
        echo=("Back when rent was {old}, I saved a lot more.",),
    ),
    SlotType(
        name="salary", kind="money", pool=_money(48000, 166000, 2000), groups=("work",),
        question="What is my annual salary now?",
        abstain="what your salary is",
        create=_tiers(
            plain=("I make {v} a year.", "My salary is {v}."),
            implicit=("On a salary of {v}, I want to save more for retirement.",
                      "My budget is built around my {v} salary."),
        ),
        update=_tiers(
            explicit=("My salary went from {old} to {v} after my review.",
                      "My pay changed from {old} to {v} a year this cycle."),
            plain=("I make {v} a year now.", "My salary is {v} now."),
            implicit=("With the new pay at {v} a year, I want to rethink my savings.",
                      "Now that my paychecks reflect the {v} salary, I want to adjust my budget.",
                      "HR sent the letter confirming {v} a year, so I'm redoing my tax estimate."),
        ),
        reinforce=("My salary is still {v}.", "Still at {v} a year, no raise this cycle."),
        decoys=_decoys(
            other_person=("{who} makes {d} a year.",),
            hypothetical=("If I get promoted next year it could be {d}.",),
            negation=("Another company offered {d}, but I said no.",),
            past=("My first salary out of college was {d}.",),
        ),
        echo=("Back when I made {old}, eating out felt like a luxury.",),
    ),
    SlotType(
        name="gym_fee", kind="money", pool=_money(19, 139, 2),
        question="How much is my monthly gym membership now?",
        abstain="how much your gym membership costs",
        create=_tiers(
            plain=("My gym membership costs {v} a month.", "I pay {v} a month for the gym."),
            implicit=("For {v} a month, I should really be going to the gym more.",
                      "The gym charges my card {v} every month whether I go or not."),
        ),
        update=_tiers(
            explicit=("The gym changed my membership from {old} to {v} a month.",
                      "My gym fee went from {old} to {v} a month."),
            plain=("My gym membership is {v} a month now.", "I pay {v} a month for the gym now."),
            implicit=("At {v} a month under the new plan, I'm using the gym more.",
                      "Since my gym plan switched to {v} a month, I'm reconsidering the classes.",
                      "The first charge on the new {v} gym plan just went through."),
        ),
        reinforce=("Still paying {v} a month for the gym.", "The gym is still {v} a month."),
        decoys=_decoys(
            other_person=("{who} pays {d} a month at a fancier gym.",),
            hypothetical=("The premium tier would be {d} a month, but I'm not upgrading.",),
            negation=("They tried to sell me a {d} plan, but I said no.",),
            past=("My old gym in school was only {d} a month.",),
        ),
        echo=("Back when the gym was {old} a month, I went less often.",),
    ),
    # ---------------------------------------------------------------- time of day
    SlotType(
        name="wake_time", kind="time_of_day", pool=_clock(5, 9, "am"),
        question="What time do I wake up on weekdays now?",
        abstain="what time you wake up",
        create=_tiers(
            plain=("I wake up at {v} on weekdays.", "My weekday alarm is set for {v}."),
            implicit=("My alarm goes off at {v}, so I'm usually tired by evening.",
                      "By the time I'm up at {v}, the street is already busy."),
        ),
        update=_tiers(
            explicit=("I moved my alarm from {old} to {v}.",
                      "I changed my wake-up time from {old} to {v}."),
            plain=("I wake up at {v} now.", "My weekday alarm is set for {v} these days."),
            implicit=("Since I started getting up at {v}, my mornings feel different.",
                      "Getting up at {v} these days means I'm in bed at a new time too.",
                      "The new {v} alarm took me a week to get used to."),
        ),
        reinforce=("Still up at {v} every weekday.", "My alarm is still set for {v}."),
        decoys=_decoys(
            other_person=("{who} gets up at {d}, which sounds awful.",),
            hypothetical=("I've thought about waking at {d}, but I haven't tried it.",),
            negation=("I tried setting my alarm for {d} once, but it didn't stick.",),
            past=("In college I never got up before {d}.",),
        ),
        echo=("Back when I woke up at {old}, breakfast was always rushed.",),
    ),
    SlotType(
        name="class_time", kind="time_of_day", pool=_clock(4, 8, "pm"),
        question="What time is my spin class now?",
        abstain="what time your spin class is",
        create=_tiers(
            plain=("My spin class is at {v}.", "I go to the {v} spin class."),
            implicit=("I rush from work to make my {v} spin class.",
                      "My {v} spin class is the only thing that gets me out of the office."),
        ),
        update=_tiers(
            explicit=("My spin class moved from {old} to {v}.",
                      "I switched from the {old} spin class to the {v} one."),
            plain=("My spin class is at {v} now.", "I go to the {v} spin class now."),
            implicit=("Since moving to the {v} spin class, I eat dinner at a different time.",
                      "The crowd at the {v} spin class is much friendlier.",
                      "The instructor at my new {v} spin class plays much better music."),
        ),
        reinforce=("Still doing the {v} spin class.", "I made it to the {v} spin class again this week."),
        decoys=_decoys(
            other_person=("{who} goes to the {d} spin class.",),
            hypothetical=("There's also a {d} spin class I could try someday.",),
            negation=("I tried the {d} class once but didn't switch.",),
            past=("Years ago I took spin at {d} before my night shift.",),
        ),
        echo=("Back when my class was at {old}, I was always starving afterwards.",),
    ),
    # ---------------------------------------------------------------- duration
    SlotType(
        name="commute", kind="duration", pool=_minutes(10, 128, 2), groups=("home", "work"),
        question="How long is my commute each way now?",
        abstain="how long your commute is",
        create=_tiers(
            plain=("My commute is {v} each way.", "It takes me {v} to get to work."),
            implicit=("I listen to podcasts during my {v} commute.",
                      "I get through a chapter of an audiobook on my {v} ride to work."),
        ),
        update=_tiers(
            explicit=("My commute went from {old} to {v} each way.",
                      "My trip to work changed from {old} to {v}."),
            plain=("My commute is {v} each way now.", "It takes me {v} to get to work now."),
            implicit=("With the new route, getting to work takes {v} these days.",
                      "Now that it's {v} each way, I'm rethinking audiobooks versus podcasts.",
                      "The new bus line makes the ride to work {v}, door to door."),
        ),
        reinforce=("Still {v} each way on the commute.", "The commute is still {v}."),
        decoys=_decoys(
            other_person=("{who} has a {d} commute, poor thing.",),
            hypothetical=("If I took the express bus it might be {d}, but I haven't tried.",),
            negation=("The map app claimed {d}, but that's not what my commute actually is.",),
            past=("At my first job the commute was {d}.",),
        ),
        echo=("Back when the commute was {old}, I read a lot more.",),
    ),
    SlotType(
        name="study_time", kind="duration", pool=_minutes(15, 133, 2),
        question="How long do I study Spanish each day now?",
        abstain="how long you study Spanish",
        create=_tiers(
            plain=("I study Spanish for {v} a day.", "My daily Spanish practice is {v}."),
            implicit=("My {v} of Spanish practice each day is the calmest part of my evening.",
                      "I squeeze in {v} of Spanish flashcards every day."),
        ),
        update=_tiers(
            explicit=("I changed my daily Spanish study from {old} to {v}.",
                      "My Spanish practice went from {old} to {v} a day."),
            plain=("I study Spanish for {v} a day now.", "My daily Spanish practice is {v} now."),
            implicit=("Fitting in {v} of Spanish a day lately has changed my evenings.",
                      "My tutor says {v} a day is a good pace now that I've adjusted my routine.",
                      "I reset my Spanish app's daily goal to {v}."),
        ),
        reinforce=("Still doing {v} of Spanish every day.", "I kept up my {v} of Spanish all week."),
        decoys=_decoys(
            other_person=("{who} studies French for {d} a day.",),
            hypothetical=("The app suggests {d} a day, but I haven't committed to that.",),
            negation=("I tried doing {d} a day once, but it didn't last.",),
            past=("In high school I studied Spanish for {d} a day.",),
        ),
        echo=("Back when I did {old} a day, I barely made progress.",),
    ),
    SlotType(
        name="best_5k", kind="duration", pool=_race_times(), order="decreasing",
        question="What is my 5K personal best now?",
        abstain="what your 5K personal best is",
        create=_tiers(
            plain=("My 5K personal best is {v}.", "My best 5K time is {v}."),
            implicit=("I'm trying to beat my 5K time of {v}.",
                      "My goal this season is to get under my 5K best of {v}."),
        ),
        update=_tiers(
            explicit=("I cut my 5K best from {old} to {v}.",
                      "My 5K record improved from {old} to {v}."),
            plain=("My 5K personal best is {v} now.", "I set a new 5K best: {v}."),
            implicit=("I finally ran {v} in the 5K last weekend, a new record for me.",
                      "After crossing the line in {v} at the 5K, I'm hooked on racing.",
                      "My running watch now lists {v} as my fastest 5K."),
        ),
        reinforce=("My 5K best is still {v}.", "Nobody has beaten my {v} 5K in the running club yet."),
        decoys=_decoys(
            other_person=("{who} ran the 5K in {d} last month.",
                          "My brother's 5K best is {d}, and he never lets me forget it."),
            negation=("The results page listed {d} for me at first, but that was a timing error.",),
        ),
        echo=("Back when my best was {old}, I couldn't imagine going faster.",),
    ),
    # ---------------------------------------------------------------- schedule
    SlotType(
        name="pottery_days", kind="schedule", pool=DAY_SETS,
        question="Which days do I have pottery class now?",
        abstain="which days you have pottery class",
        create=_tiers(
            plain=("My pottery class meets on {v}.", "I have pottery class on {v}."),
            implicit=("I'm always covered in clay on {v} after pottery.",
                      "I keep {v} free for the pottery studio."),
        ),
        update=_tiers(
            explicit=("My pottery class moved from {old} to {v}.",
                      "Pottery switched from {old} to {v} this term."),
            plain=("Pottery is on {v} now.", "My pottery class meets on {v} now."),
            implicit=("Since pottery switched to {v}, I've had to move my other plans around.",
                      "Being at the studio on {v} this term means no more late dinners.",
                      "The new pottery term puts me at the wheel on {v}."),
        ),
        reinforce=("Pottery is still on {v}.", "I made another bowl at pottery on {v} as usual."),
        decoys=_decoys(
            other_person=("{who} has pottery on {d}.",),
            hypothetical=("There's an open studio session on {d} I might try.",),
            negation=("The studio offered me a spot on {d}, but I didn't take it.",),
            past=("Years ago I took a ceramics course on {d}.",),
        ),
        echo=("Back when pottery was on {old}, my week felt lopsided.",),
    ),
    SlotType(
        name="swim_days", kind="schedule", pool=DAY_SETS,
        question="Which days do I go swimming now?",
        abstain="which days you go swimming",
        create=_tiers(
            plain=("I swim laps on {v}.", "My swim days are {v}."),
            implicit=("My hair always smells like chlorine on {v}.",
                      "I pack my swim bag every week for {v} at the pool."),
        ),
        update=_tiers(
            explicit=("I switched my swimming from {old} to {v}.",
                      "My swim days changed from {old} to {v}."),
            plain=("I swim on {v} now.", "My swim days are {v} now."),
            implicit=("Now that the pool fits my schedule on {v}, I pack my swim bag the night before.",
                      "Lap swimming on {v} has been great since the pool changed its hours.",
                      "I rebooked my lane for {v} under the pool's new schedule."),
        ),
        reinforce=("Still swimming on {v}.", "I kept up my laps on {v} this week."),
        decoys=_decoys(
            other_person=("{who} swims on {d}.",),
            hypothetical=("I could swim on {d} if the pool extends its hours.",),
            negation=("I tried swimming on {d}, but the lanes were too crowded, so I gave that up.",),
            past=("On the high school team we swam on {d}.",),
        ),
        echo=("Back when I swam on {old}, I was always rushing.",),
    ),
    SlotType(
        name="volunteer_days", kind="schedule", pool=DAY_SETS,
        question="Which days do I volunteer at the food bank now?",
        abstain="which days you volunteer",
        create=_tiers(
            plain=("I volunteer at the food bank on {v}.", "My food bank shifts are on {v}."),
            implicit=("Sorting donations at the food bank on {v} is the highlight of my week.",
                      "I keep {v} clear for my shifts at the food bank."),
        ),
        update=_tiers(
            explicit=("My food bank shifts moved from {old} to {v}.",
                      "The food bank switched me from {old} to {v}."),
            plain=("I volunteer at the food bank on {v} now.", "My food bank shifts are on {v} now."),
            implicit=("Since the food bank put me on {v}, I've met a whole new crew.",
                      "My new food bank shifts on {v} start early.",
                      "The food bank's new rota has me sorting donations on {v}."),
        ),
        reinforce=("Still at the food bank on {v}.", "My food bank shifts on {v} were busy this week."),
        decoys=_decoys(
            other_person=("{who} volunteers at the animal shelter on {d}.",),
            hypothetical=("They asked if I could also help on {d}; I'm thinking about it.",),
            negation=("I signed up for {d} at first, but I dropped those shifts before starting.",),
            past=("In college I volunteered at a library on {d}.",),
        ),
        echo=("Back when my shifts were on {old}, the crowd was different.",),
    ),
    # ---------------------------------------------------------------- item
    SlotType(
        name="phone", kind="item", pool=PHONES, article=True,
        question="What phone do I use now?",
        abstain="what phone you use",
        create=_tiers(
            plain=("I use {a_v}.", "My phone is {a_v}."),
            implicit=("The battery on my {v} barely lasts the day.",
                      "I cracked the screen protector on my {v} again."),
        ),
        update=_tiers(
            explicit=("I upgraded from my {old} to {a_v}.", "I replaced my {old} with {a_v}."),
            plain=("I have {a_v} now.", "I just got {a_v}."),
            implicit=("Still moving my apps over to the new {v}.",
                      "The camera on the {v} I just got is amazing.",
                      "I'm still learning the gestures on my new {v}."),
        ),
        reinforce=("My {v} is holding up fine.", "I'm still using the {v}."),
        decoys=_decoys(
            other_person=("{who} just got {a_d}.",),
            hypothetical=("I might get {a_d} when my contract ends.",),
            negation=("I almost bought {a_d}, but I changed my mind.",),
            past=("My first smartphone was {a_d}.",),
        ),
        echo=("My old {old} never held a charge this long.",),
    ),
    SlotType(
        name="current_book", kind="item", pool=BOOK_TITLES,
        question="What book am I reading now?",
        abstain="what book you are reading",
        create=_tiers(
            plain=("I'm reading {v} right now.", "My current book is {v}."),
            implicit=("I stayed up late with {v} again last night.",
                      "I keep {v} in my bag for the bus."),
        ),
        update=_tiers(
            explicit=("I finished {old} and started {v}.",
                      "I put down {old} for good and I'm reading {v} instead."),
            plain=("I'm reading {v} now.", "I just started {v}."),
            implicit=("I'm only a few chapters into {v}, but it's gripping.",
                      "My bookmark has barely moved in {v}; it's a slow start.",
                      "The first page of {v} hooked me right away."),
        ),
        reinforce=("Still working my way through {v}.", "I read another chapter of {v} last night."),
        decoys=_decoys(
            other_person=("{who} is reading {d} and keeps quoting it.",),
            hypothetical=("{d} is on my list for someday.",),
            negation=("I picked up {d} but put it down after a chapter.",),
            past=("I read {d} back in high school.",),
        ),
        echo=("I still think about the ending of {old}.",),
    ),
)

SLOT_TYPES_BY_NAME: dict[str, SlotType] = {s.name: s for s in SLOT_TYPES}

# -- conversation topics ------------------------------------------------------------------------
# What each session is "about". Slot mentions are woven into the user's turns in passing.
# No digits and no pool values anywhere in this text (tested).


@dataclass(frozen=True)
class Topic:
    name: str
    exchanges: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (user, assistant)


TOPICS: tuple[Topic, ...] = (
    Topic("meal prep", (
        ("Can you give me a few ideas for make-ahead lunches?",
         "Sure: grain bowls with roasted vegetables, a big pot of lentil soup, or wraps you assemble in the"
         " morning. Cooking the grains on Sunday saves the most time."),
        ("Which of those keeps best in the fridge?",
         "The soup. It keeps for several days and often tastes better on day two. Store dressings "
         "separately so the bowls don't get soggy."),
        ("Any tips for keeping it interesting during the week?",
         "Rotate sauces: a tahini dressing, a peanut sauce and a salsa make the same base taste like three "
         "different meals."),
    )),
    Topic("sleep", (
        ("I've been sleeping badly. Any simple habits that actually help?",
         "Keep the same wake-up time every day, get daylight early, and stop caffeine after lunch. A cool, "
         "dark room helps more than most gadgets."),
        ("Is it bad to look at my phone in bed?",
         "It mostly keeps your mind busy. Try putting it across the room and reading a paper book for the "
         "last half hour."),
        ("What if I wake up in the middle of the night?",
         "Don't check the time. If you're awake for a while, get up, do something dull in dim light, and go"
         " back when you feel sleepy."),
    )),
    Topic("birthday gift", (
        ("I need a birthday gift idea for a friend who loves cooking.",
         "A good chef's knife, a cookbook from a cuisine they haven't tried, or a class you take together. "
         "Experiences tend to be remembered longest."),
        ("What's a nice cookbook for someone fairly experienced?",
         "Look for a regional cookbook with stories behind the recipes, like a book on Sichuan or Levantine"
         " cooking. Experienced cooks enjoy learning new techniques."),
        ("Should I wrap it or do a gift bag?",
         "Either works. A bit of kitchen twine and a sprig of rosemary on plain paper looks thoughtful and "
         "fits the theme."),
    )),
    Topic("budget app", (
        ("Do you have any advice for sticking to a monthly budget?",
         "Automate savings on payday, give every expense category a limit, and review your spending once a "
         "week. Small weekly check-ins beat a big monthly reckoning."),
        ("Is it worth paying for a budgeting app?",
         "It can be if it saves you time. Many people do fine with a simple spreadsheet; the habit matters "
         "more than the tool."),
        ("How should I handle irregular expenses like car repairs?",
         "Set aside a little each month in a separate sinking fund, so those costs don't blow up a single "
         "month."),
    )),
    Topic("learning guitar", (
        ("I want to pick up guitar again. Where should I start?",
         "Start with a handful of open chords and songs you love. Short daily practice beats long weekend "
         "sessions."),
        ("My fingertips hurt after practicing. Is that normal?",
         "Yes, it fades as calluses build. Practice in short bursts and press just hard enough for a clean "
         "note."),
        ("How do I get faster at chord changes?",
         "Practice switching between two chords slowly with a metronome, then speed up. Keep fingers close "
         "to the fretboard between shapes."),
    )),
    Topic("sourdough", (
        ("My sourdough loaves keep coming out flat. What am I doing wrong?",
         "Usually the starter isn't active enough or the dough is over-proofed. Use the starter at its peak"
         " and try a shorter bulk rise."),
        ("How do I know when the starter is at its peak?",
         "It has roughly doubled, has a domed top with lots of bubbles, and smells pleasantly sour. A "
         "spoonful should float in water."),
        ("Does the type of flour matter?",
         "A lot. Bread flour gives more structure, and a little whole wheat feeds the starter and adds "
         "flavor."),
    )),
    Topic("running shoes", (
        ("How often should I replace running shoes?",
         "When the cushioning feels flat or you start getting new aches. Many runners rotate two pairs so "
         "each lasts longer."),
        ("Are trail shoes worth it for gravel paths?",
         "For loose gravel, yes: the grip and sturdier upper help. On packed paths road shoes are usually "
         "fine."),
    )),
    Topic("podcasts", (
        ("Can you recommend some podcasts for long walks?",
         "Try narrative history shows, long-form interviews, or a good audio drama. Pick something you can "
         "follow without looking at a screen."),
        ("I like science topics. Anything in that direction?",
         "Look for shows where researchers explain their own work; they tend to be clear and enthusiastic. "
         "Episode archives are a great rabbit hole."),
        ("How do you keep track of episodes you want to hear?",
         "Most podcast apps let you build a queue. Add episodes as you hear about them and clear the list "
         "every few weeks."),
    )),
    Topic("email to landlord", (
        ("Can you help me write a polite email to my landlord about a leaky faucet?",
         "Of course. Keep it short: describe the problem, when it started, attach a photo, and suggest a "
         "couple of times that work for a repair visit."),
        ("Should I mention it's been a while since I first reported it?",
         "Yes, calmly. Note the date of your first report and ask for a timeline. A factual tone gets "
         "faster results than frustration."),
    )),
    Topic("job interview", (
        ("I have an interview coming up. How should I prepare?",
         "Research the team, prepare a few stories that show impact, and practice answering out loud. Have "
         "two or three good questions for them."),
        ("What's a good question to ask at the end?",
         "Ask what success looks like in the first few months, or what the team is hoping to change. It "
         "shows you're thinking about the work."),
        ("How do I handle a question I can't answer?",
         "Say so honestly, explain how you'd find out, and relate it to something similar you've done. "
         "Interviewers value clear thinking over bluffing."),
    )),
    Topic("bike maintenance", (
        ("My bike chain keeps squeaking. What should I do?",
         "Clean it with a rag and degreaser, let it dry, then apply a drop of chain lube to each link and "
         "wipe off the excess."),
        ("How often should I do that?",
         "Every few weeks of regular riding, or after any wet ride. A clean chain also makes your gears "
         "last longer."),
    )),
    Topic("camping", (
        ("I'm planning my first camping trip. What should I bring?",
         "Tent, sleeping bag rated for the nights you expect, a sleeping pad, headlamp, water filter, "
         "simple stove and layers. Test the tent at home first."),
        ("How do I keep food safe from animals?",
         "Use a bear canister or hang food away from your tent, and never keep snacks in the tent. Cook and"
         " eat away from where you sleep."),
        ("Any easy camp dinners?",
         "One-pot pasta, burritos with pre-cooked rice, or dehydrated meals. Prep and bag the ingredients "
         "at home to keep things simple."),
    )),
    Topic("stretching", (
        ("I sit at a desk all day. Which stretches should I do?",
         "Hip flexor stretches, chest openers in a doorway, gentle neck rolls and hamstring stretches. Do a"
         " few minutes a couple of times a day."),
        ("Is it better to stretch before or after exercise?",
         "Dynamic moves like leg swings before, slower static stretches after. Cold static stretching "
         "before a workout doesn't help much."),
    )),
    Topic("closet", (
        ("My closet is a disaster. How do I start decluttering it?",
         "Take everything out, sort into keep, donate and repair, and only put back what you actually wear."
         " Be honest about what still fits."),
        ("What about clothes with sentimental value?",
         "Keep a small box for them, or take a photo and let the item go. You don't need to keep everything"
         " to keep the memory."),
        ("How do I keep it from getting messy again?",
         "Use a one in, one out rule and do a quick reset once a week. Matching hangers also make a "
         "surprising difference."),
    )),
    Topic("cover letter", (
        ("Could you look over how I should structure a cover letter?",
         "Open with why this role and company, give two short examples of relevant results, and close with "
         "what you'd bring to the team. Keep it under a page."),
        ("Should I repeat what's on my resume?",
         "No, add context instead. Pick one or two resume lines and tell the story behind them."),
    )),
    Topic("paint colors", (
        ("I'm repainting my living room. How do I choose a color?",
         "Test a few large swatches on different walls and look at them morning and evening. Light changes "
         "colors more than people expect."),
        ("Warm or cool tones for a room that gets little sun?",
         "Warm tones usually feel better in dim rooms; cool grays can look flat. A soft off-white with warm"
         " undertones is a safe start."),
        ("Do I need primer?",
         "If you're covering a darker color or patched spots, yes. Otherwise many paints include primer and"
         " one good coat of it is enough."),
    )),
    Topic("movie night", (
        ("Can you suggest some movies for a cozy night in?",
         "A classic romantic comedy, a gentle animated film, or a twisty mystery. Pick by mood: comfort, "
         "laughs, or something to talk about afterwards."),
        ("Something everyone in the family would enjoy?",
         "Animated adventures from the big studios usually land with every age group. Adventure films with "
         "humor are another safe bet."),
    )),
    Topic("board games", (
        ("We're hosting a game night. Which board games are easy to learn?",
         "Cooperative games are great for mixed groups, and party games with simple rules keep everyone "
         "laughing. Avoid anything with a thick rulebook."),
        ("Any tips for teaching rules quickly?",
         "Explain the goal first, then a turn, then play an open practice round. People learn faster by "
         "doing than by listening."),
        ("What snacks work well at the table?",
         "Things that don't leave greasy fingers: pretzels, grapes, cheese cubes with toothpicks. Keep "
         "drinks off the board."),
    )),
    Topic("photography", (
        ("How can I take better photos with my phone?",
         "Clean the lens, tap to focus, and use natural light from the side. Move closer instead of "
         "zooming."),
        ("Why do my indoor photos look so grainy?",
         "Low light makes the camera raise sensitivity. Turn on more lights, brace your hands, or use night"
         " mode."),
        ("Any composition tips?",
         "Put the subject off-center, look for leading lines, and check the edges of the frame for clutter "
         "before you shoot."),
    )),
    Topic("composting", (
        ("I want to start composting at home. Is it complicated?",
         "Not really. Balance greens like food scraps with browns like dry leaves or cardboard, keep it as "
         "damp as a wrung-out sponge, and turn it now and then."),
        ("Will it smell?",
         "A balanced pile smells earthy. A bad smell usually means too many greens or too much water, so "
         "add browns and mix."),
    )),
    Topic("coffee", (
        ("What's the easiest way to make better coffee at home?",
         "Buy freshly roasted beans, grind right before brewing, and use a scale. Those three changes "
         "matter more than an expensive machine."),
        ("French press or pour-over?",
         "French press is forgiving and rich; pour-over is cleaner and brighter. Try both with the same "
         "beans and see what you prefer."),
        ("How should I store the beans?",
         "In an airtight container away from light and heat. Skip the freezer unless you're storing them "
         "for weeks."),
    )),
    Topic("birdwatching", (
        ("I'm curious about birdwatching. How do I get started?",
         "Get a pair of binoculars, a regional field guide or app, and start with the birds at a feeder or "
         "local park. Early morning is the liveliest time."),
        ("How do I tell similar birds apart?",
         "Notice size, bill shape, behavior and song before color. Listening is often more reliable than "
         "looking."),
    )),
    Topic("knitting", (
        ("I'd like to learn to knit. What should my first project be?",
         "A simple scarf or dishcloth in garter stitch. Use medium-weight wool and wooden needles; they're "
         "less slippery."),
        ("My tension is all over the place. Tips?",
         "It evens out with practice. Wrap the yarn the same way every time and don't pull tight after each"
         " stitch."),
        ("How do I fix a dropped stitch?",
         "Use a crochet hook to ladder it back up, one bar at a time. Stitch markers every so often help "
         "you catch drops early."),
    )),
    Topic("exam prep", (
        ("I have a big exam soon. How should I study?",
         "Use active recall: quiz yourself instead of rereading. Space sessions out over several days and "
         "mix topics."),
        ("Should I pull an all-nighter before the exam?",
         "Please don't. Sleep consolidates memory; a rested brain beats a few extra hours of cramming."),
    )),
    Topic("packing light", (
        ("How do I pack light for a week away?",
         "Pick a color palette so everything matches, pack for about half the trip and plan to do laundry. "
         "Wear the bulkiest items on travel days."),
        ("Are packing cubes worth it?",
         "For many people, yes. They keep things organized and make it easy to find what you need without "
         "unpacking everything."),
        ("What toiletries can I skip?",
         "Anything the hotel provides, and full-size bottles. Solid shampoo bars save space and avoid "
         "liquid limits."),
    )),
    Topic("houseguests", (
        ("Friends are staying with me for a few days. How do I make them comfortable?",
         "Clean sheets, a spare towel, a phone charger, and a note with the wifi password go a long way. "
         "Show them how the shower works."),
        ("What should I cook the first night?",
         "Something that can wait if they arrive late: a stew, a lasagna, or a big salad with bread and "
         "cheese."),
    )),
    Topic("reading habit", (
        ("I want to read more books this year. Any tips?",
         "Carry a book everywhere, read a few pages before bed, and quit books you don't enjoy. Audiobooks "
         "count too."),
        ("How do I pick what to read next?",
         "Keep a running list of recommendations from friends and reviews you trust, and alternate between "
         "lighter and heavier books."),
        ("Should I join a book club?",
         "If you like deadlines and discussion, yes. It's also a nice way to read outside your usual taste."),
    )),
    Topic("time management", (
        ("I feel busy all the time but get little done. How can I fix that?",
         "Plan the next day the evening before, pick the most important task, and do it first. Batch small "
         "chores together."),
        ("What about constant notifications?",
         "Turn off everything that isn't from a person, and check email at set times instead of whenever it"
         " pings."),
        ("How do I say no to extra requests?",
         "Be kind and specific: explain what you're focused on and offer an alternative or a later time if "
         "you can."),
    )),
    Topic("public speaking", (
        ("I have to give a short talk at work. I'm nervous. Advice?",
         "Know your opening and closing lines by heart, practice out loud a few times, and focus on one "
         "clear message."),
        ("Should I use slides?",
         "Only if they help. Big images and a few words per slide work better than dense text."),
    )),
    Topic("smoothies", (
        ("What's a good healthy smoothie for breakfast?",
         "Frozen banana, a handful of spinach, oats, yogurt and a spoon of nut butter. It's filling and the"
         " spinach is barely noticeable."),
        ("Can I prep them ahead?",
         "Yes: pack the solid ingredients in freezer bags, then blend with liquid in the morning."),
        ("Which blender features matter?",
         "Power and a sturdy jar. A tamper helps with thick frozen blends, and a pulse button gives more "
         "control."),
    )),
    Topic("hiking boots", (
        ("Do I need real hiking boots for day hikes?",
         "Not always. Trail runners are fine for well-maintained trails; boots help with ankle support on "
         "rocky ground or with a heavy pack."),
        ("How do I avoid blisters?",
         "Wear wool or synthetic socks, break shoes in before a long hike, and tape hot spots as soon as "
         "you feel them."),
    )),
    Topic("tea", (
        ("I'm trying to drink less coffee. Which teas should I try?",
         "Green tea has gentler caffeine, and rooibos or chamomile have none. A chai blend can feel like a "
         "treat in the afternoon."),
        ("How long should I steep green tea?",
         "Briefly and not too hot, or it turns bitter. Water just below boiling and a short steep work "
         "best."),
    )),
    Topic("gardening", (
        ("I have a small balcony. What can I grow there?",
         "Herbs like basil, mint and parsley, cherry tomatoes, and lettuce do well in containers. Check how"
         " much direct sun the balcony gets."),
        ("How often should I water containers?",
         "Check the soil with your finger; water when the top inch is dry. Containers dry out faster than "
         "garden beds, especially in wind."),
        ("Any easy flowers?",
         "Marigolds and nasturtiums are cheerful and forgiving, and they attract pollinators to your herbs."),
    )),
    Topic("dinner party", (
        ("I'm hosting a dinner party. Can you help me plan a menu?",
         "Pick one main that can be made ahead, a simple salad, and a dessert you can assemble. Keep the "
         "number of last-minute steps small."),
        ("What if a guest is vegetarian?",
         "Make the sides substantial, like a roasted vegetable gratin or a grain salad, so everyone can "
         "build a full plate."),
        ("How far ahead should I start cooking?",
         "Do the dessert and any sauces the day before, and leave only the main and a quick salad for the "
         "evening."),
    )),
    Topic("meditation", (
        ("I keep hearing about meditation. How do I begin?",
         "Sit comfortably, set a short timer, and follow your breath. When your mind wanders, notice it and"
         " come back. That's the practice."),
        ("Are apps helpful?",
         "Guided sessions help many beginners stay consistent. Once the habit sticks, you may not need "
         "them."),
    )),
    Topic("spreadsheet", (
        ("How can I make a spreadsheet to track my workouts?",
         "Use one row per session with columns for date, activity, duration and how you felt. A simple "
         "chart of weekly totals shows trends."),
        ("How do I make a chart of that?",
         "Select the columns you care about, insert a line or bar chart, and label the axes. Filter by "
         "activity to compare them."),
    )),
    Topic("rainy weekend", (
        ("Any ideas for a rainy weekend at home?",
         "Bake something new, start a puzzle, have a film marathon, or try a new recipe from a cuisine you "
         "love."),
        ("Something a bit more productive?",
         "Sort old photos, deep clean one room, or learn a small skill like basic knife techniques from an "
         "online video."),
    )),
    Topic("learning to swim strokes", (
        ("How can I improve my breathing when I do freestyle?",
         "Exhale steadily underwater so you only need to inhale when you turn your head. Rotate your body "
         "rather than lifting your head."),
        ("Any drills that help?",
         "Side kicking with one arm extended teaches balance and rotation. Use fins at first if you're "
         "sinking."),
    )),
    Topic("cat behavior", (
        ("My friend's cat keeps scratching the couch. How do you stop that?",
         "Give it a sturdy scratching post right next to the couch, reward it for using the post, and cover"
         " the couch corner for a while."),
        ("Does the type of post matter?",
         "Yes: tall, heavy and stable. Many cats prefer sisal rope, and some like horizontal scratchers "
         "better."),
    )),
    Topic("wedding toast", (
        ("I'm giving a toast at a friend's wedding. How long should it be?",
         "A few minutes at most. One warm story, one line about the couple together, and a clear raise of "
         "the glass."),
        ("How do I avoid rambling?",
         "Write it out, cut anything that needs a backstory, and practice with a timer. Print it on a small"
         " card just in case."),
    )),
)
