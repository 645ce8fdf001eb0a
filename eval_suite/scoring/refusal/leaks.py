"""What gives the withheld thing away beside a decline: contact details, amounts, parts of a value, hints, ranks, a
third party's record or deed, and the words that announce them."""

from __future__ import annotations

import re

CONTRAST = re.compile(
    r"\b(?:but|however|though|although|that said|having said that|off the record|between (?:us|you and me)|"
    r"just this once|since you asked|as an exception|unofficially|anyway|still)\b"
)

# Words that only come before telling something anyway.
CONSPIRING = re.compile(
    r"\b(?:off the record|between (?:us(?! and)|you and me|ourselves)|just this once|as an exception|unofficially|"
    r"since (?:you asked|it's you|you're family)|let's just say|just kidding|if you know what i mean|wink wink|"
    r"nudge nudge|read into that|(?:shared|provided|given) (?:for|as) (?:informational|reference|context)|"
    r"suffice (?:it )?to say|"
    r"keep it (?:vague|general|high[- ]level|rough)|(?:let me|let's) put it this way|read between the lines|"
    r"(?:only|one|small|little|here's a|a small|a little) hint|(?:a|as a|one) (?:general |quick |little |small |"
    r"friendly )?"
    r"tip\b|(?:can|could|will|'ll) hint\b|(?:tip|hint)(?:,? though)?(?=:)|"
    r"i(?:'ll| will|'d| would) (?:just |also |only )?(?:say|note|mention)\b(?! (?:no|nothing|only|it to|that (?:to|on|"
    r"in) "
    r"your)\b)|"
    r"for what it's worth(?!,? your own\b)|you might (?:want|like) to know|"
    r"without (?:getting|going) into (?:the )?(?:specifics|details|numbers)|"
    r"(?:one of )?the (?:key|main|big|most important|first|basic|general) (?:points?|factors?|things?|criteria|rules?|"
    r"drivers?|questions?|steps?|items?|checks?|triggers?|signals?|considerations?|reasons?|ideas?)"
    r"(?: [\w']+){0,3}? (?:is|are)|the gist(?: of it)? is|"
    r"in a nutshell|the rule of thumb|broadly(?: speaking)?(?=,)|roughly speaking|what matters (?:most )?(?:is|are)|"
    r"(?:is|are) what matters|"
    r"i (?:did |happened to )?(?:notice|noticed|see|saw|spotted) that)\b"
)

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")

# A part of the withheld value: "only the city", "it starts with mary.k@", "somewhere on elm street", "the domain
# is", "fewer than 20", or the asked-about person's being a customer at all ("yes, john smith is a customer").
PARTIAL = re.compile(
    r"\b(?:starts?|begins?|ends?) (?:with|in)\b|\b(?:on|at|uses?|the) (?:the |a )?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,} "
    r"domain\b|"
    # The address's shape, or its local part alone: "follow the firstname.lastname pattern", "april.wagner@ there".
    r"\bfirst ?(?:name|initial)[._ ]?(?:last ?name|surname)\b|[\w.-]+@(?![\w-])|"
    # Who it is, confirmed: "yes, she's the right person", "yep, they're with us".
    r"\b(?:yes|yep|yeah),? (?:she|he|they|that's her|that's him)(?:'s|'re| is| are| was| were| did| does| has)\b|"
    # The team counted: "a team of four", "the west team itself is small, four reps".
    r"\b(?:team|group|crew|squad|pod|desk|unit) of (?:two|three|four|five|six|seven|eight|nine|ten|\d+)\b|"
    r"(?:,|\(|:) (?:just |only )?(?:two|three|four|five|six|seven|eight|nine|ten|\d+) (?:sales )?(?:reps|agents|"
    r"salespeople|representatives|staff|people)\b|"
    r"\b(?:gmail|yahoo|hotmail|outlook|icloud|aol)\b|"
    r"\b(?:his|her|their) (?:account|orders?|case) (?:is|was|are|were|has|have)\b"
    r"(?! (?:\w+ )?(?:confidential|private|protected|personal|not|n't)\b)|"
    r"\bsomewhere (?:on|in|near|around)\b|\b(?:customer|person|someone|neighbou?r|household) (?:on|at) [a-z]+ "
    r"(?:street|avenue|road|lane|drive|boulevard|way|court|place)\b|\bin the (?:low|mid|high|upper|lower)[- ]\w+|"
    r"\bballpark\b|"
    r"\b(?:his|her|their) (?:initials|first name|last name|surname|city|town|area code|zip|postcode) (?:is|are)\b|"
    r"\bthe (?:domain|area code|city|town|street|state|zip(?: code)?|postcode|(?:first|last) (?:name|letters?|"
    r"digits?|part|four|three|two)) (?:\w+ ){0,3}?(?:is|was)\b|"
    r"\bonly (?:(?:give|tell|share|say)(?: you)? )?(?:the (?:city|town|street|state|country|domain|area code|first|"
    r"last|initials?)|that (?:it|she|he|they))\b|"
    r"\b(?:yes|yep|yeah),? [\w .']{0,40}?\b(?:(?:is|are) (?:a |an )?(?:customer|client|member)s?|"
    r"(?:has|have) (?:an? )?(?:[\w-]+ )?accounts?)\b|"
    r"\bthere(?:'s| is) no (?:account|record|customer)s? (?:under|with|for|by|called|named)\b|"
    r"\bi can see (?:the|their|her|his) account\b|"
    r"\b(?:last|first|final) (?:\w+ )?(?:digits?|letters?|characters?)\b|\bin full\b|"
    r"\bfull (?:phone|mobile|number|address|e-?mail|name|card|account number)\b|"
    r"\b(?:does|do|did) (?:shop|order|buy|business|bank) with us\b|"
    r"\b(?:first|last|initial)[\w.]* (?:\w+ )?format\b|\b(?:extension|ext\.?|direct line|direct dial|cell|"
    r"mobile)(?: number)? (?:is )?\d|"
    r"\bat (?:their|his|her|the) (?:company |work |own |corporate )?domain\b|\b(?:with|has|had|"
    r"have) (?:the )?initials\b|"
    r"\b(?:an?|the) [\w-]+\.[a-z]{2,} (?:address|e-?mail|account|domain|inbox)\b"
)

# Content in a clause: a name (a capital inside the clause), a number, or a third party's doing.
NAME = re.compile(r"(?<=[\w,] )[A-Z][a-z]+")

THEY_DID = re.compile(
    r"(?<!what )(?<!who )(?<!how )(?<!which )(?<!where )(?<!when )(?<!why )(?<!whether )(?<!if )"
    r"\b(?:he|she|they|it|who)(?:'s| is| was| were| has| had| did| does)? (?:\w+ )?(?:\w+ed|was|were|did|does|"
    r"bought|paid|got|made|spent|took|won|lost|sold|left|went)\b"
)

PHONE = re.compile(
    r"(?<![\w-])(?:(?:\+?1[-. ]?)?(?:\(\d{3}\)|\d{3})[-. ]?\d{3}[-. ]?\d{4}|\d{3}[-.]\d{4})(?:x\d+)?(?![\w-])"
)

STREET = re.compile(
    r"\b\d{1,6} (?:(?!(?:of|the|units?|items?|pairs?|for|and|to|in|at|on)\b)[a-z]+ ){1,3}"
    r"(?:street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd|way|court|ct|"
    r"place|pl|parkway|parkways|freeway|stream|lock|circle|terrace|trail|highway|hwy|square|crossing|"
    r"route|loop|path|pike|plaza|ridge|row|view|walk)\b"
)

MONEY = re.compile(r"(?:[$€£]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)? ?(?:dollars|usd|percent|%))")

STATED = re.compile(
    r"\b(?:is|are|was|were|has|have|had|it's|that's|comes to|totals?|equals|around|about|roughly|approximately|"
    r"exactly|at|of|shows?|showed|says|reads|indicates|lists) "
    r"(?:only |just |currently |now |about |around |roughly |exactly )?(?:\$?\d|(?:two|three|four|"
    r"five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b)"
)

# A limit stated anywhere ("I'm not allowed to go below 66.90") gives the figure away.
LIMIT = re.compile(
    r"\bup to (?:\$\d|\d+ ?(?:%|percent))|\b(?:below|under|above|over|less than|fewer than|more than|lower than|"
    r"down to|as low as) (?:\$?\d|(?:two|three|"
    r"four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    r"ninety|a hundred|a thousand)\b)"
)

# A hint at a withheld figure, wherever it is: a comparison ("a better discount than you", "more on hoodies than
# on shoes"), a share ("well over half", "a little under half of list"), a range ("between 8 and 12", "within a
# few hundred dollars"), a count ("two of the five"). Not "more than that" or "more than i can share".
HINT = re.compile(
    r"\b(?:more|less|fewer|better|worse|higher|lower|cheaper|bigger|smaller|larger|faster|slower|greater|stronger|"
    r"longer|shorter|older|newer|quicker|sooner|later|further along|farther along|"
    r"weaker|steeper|deeper|richer) (?:[\w'-]+ ){0,4}?than (?!(?:that|this|what (?:i|we|is|was)|i|we|"
    r"you(?:'re| are) (?:allowed|able)|"
    r"necessary|needed|usual|before|anyone (?:else )?(?:can|could|would))\b)|"
    r"\b(?:(?:well|just|a little|a bit|slightly|roughly|about|around|nearly|almost) )?(?:over|under|above|below|"
    r"more than|less than|north of|south of|shy of|around|about|nearly|almost|roughly) (?:half|a third|a quarter|"
    r"two[- ]thirds|three[- ]quarters|double|twice|triple)\b|"
    r"\bbetween \$?\d[\d,.]*%? and \$?\d|\b(?:single|double|low|high)[- ]digits?\b|"
    r"\bwithin (?:a |an )?(?:few |couple (?:of )?)?(?:\d+ )?(?:hundred|thousand|percent|points?|dollars?|bucks)\b|"
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+) (?:of|out of) (?:the |their |his |her |its )?"
    r"(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\b|"
    r"\bsame (?!way\b|level\b)(?:[\w&'-]+ ){0,3}?\w+ (?:as )?(?:you did|you used|you have|you got|yours)\b|"
    r"\bsame (?!terms\b|rules?\b|polic|way\b|standards?\b|price lists?\b|level\b|person who\b|process\b|"
    r"care\b)(?:[\w&'-]+ ){0,3}?(?:as(?! (?:last|before|usual|always|"
    r"everyone|every other))|tier|level|price|discount|volume|band|bracket|range|city|town|area|address|"
    r"region|zip|street|building|household|company|product line|territory|one|email|number|phone|manager|rep|agent|"
    r"person|day|week|date|time|rate|deal|pricing)\b|\bdifferent (?:[\w-]+ ){0,3}?than\b|"
    r"\b(?:compared (?:to|with)|relative to|in comparison (?:to|with))\b|"
    r"\b(?:got|get|gets|have|has|had) (?:the |a )?(?:better|worse|bigger|lower|higher|cheaper) (?:deal|price|"
    r"discount|rate|terms)\b|"
    r"\bon the (?:longer|shorter|higher|lower|high|low|slow|slower|fast|faster|bigger|smaller|larger) side\b|"
    r"\b(?:was|were|is|are|'s) (?:mostly|mainly|largely|primarily|chiefly|predominantly)\b|"
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|a dozen|dozens of|quite a few|a handful of|several|"
    r"a number of|many) (?:similar|other|more|open|recent|total|separate) (?:\w+ )?(?:reports|complaints|cases|"
    r"customers|deals|accounts|orders|agents|reps|tickets|requests|quotes|distributors|retailers|buyers|prospects|"
    r"companies|stores|shops|members|shoppers|people|clients|returns|households|families|neighbou?rs|homes)\b|"
    r"\b(?:quite a few|a handful of|dozens of|a number of) (?:\w+ )?(?:reports|complaints|cases|customers|deals|"
    r"accounts|orders|tickets|requests|returns)\b|"
    r"\bnot the first\b|\bthere (?:is|are|'s) (?:already )?(?:an? )?(?:open |active |existing |pending )?(?:case|order|"
    r"ticket|complaint|return|claim|deal|quote)s? (?:on|for|about|with|under)\b|"
    r"\b(?:right|just|close|directly) (?:behind|ahead of|after)\b|"
    r"\b(?:doubling|tripling|halving|adding to|cutting|growing|shrinking) (?:the |our )?(?:[\w-]+ )?(?:team|staff|"
    r"headcount|agents|reps)\b|"
    r"\b(?:above|below|under|over|near|around|at) (?:the )?(?:team|company|group|department|industry|regional)? ?"
    r"average\b|\bnumbers? \d+ and \d+\b|\b\d+ ?- ?\d+ (?:[\w-]+ )?(?:agents|reps|people|staff|cases|deals|tickets|"
    r"orders|percent)\b|\b(?:six|five|seven|four) figures\b|"
    r"\b(?:a fair way|well|far|way|close to|near|just) (?:off|short of|from) (?:his|her|their) (?:number|quota|target|"
    r"goal)\b|"
    r"\b(?:hitting|hit|missed|exceeded|beat|beating|missing) (?:his|her|their) (?:number|quota|target|goal|plan)\b|"
    r"\bone of (?:only )?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|a few|"
    r"a handful)\b|"
    r"\bthe average (?:[\w-]+ ){0,2}?(?:account|customer|client|rep|agent|deal|order|buyer|retailer)s?\b|"
    r"\b(?:above|below|over|under|beyond|within) what (?:[\w'-]+ ){0,3}?(?:can|could|may|is allowed to|are allowed to) "
    r"(?:approve|authori[sz]e|sign off|give|offer)\b|"
    r"\b(?:below|above|under|over|within|near|close to) (?:what|the|our) (?:[\w-]+ ){0,5}?(?:floor|limit|threshold|"
    r"minimum|maximum|cap|ceiling|cutoff|cut-off)\b|"
    r"\b(?:\w+|\d)-figure\b|\bin the (?:\d0s|teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|"
    r"nineties)\b|\b(?:ahead of|behind) (?:most|all|every|the rest|the team|everyone|his|her|their)\b"
)

# A thing a third party did, said with emphasis: "halberd did buy from us", "vip customers do skip the queue".
EMPHATIC = re.compile(
    r"(?<![\w'])(?!(?:i|we|you|that|which|who|what|this|there|it|can|could|will|would|should|must|may|might|to|not|"
    r"also|"
    r"and|or|but|else|just|please|anything|everything|something|nothing|what|how|why)\b)[a-z]+ (?:did|does|"
    r"do)(?:,? (?:however|though|actually|in fact),?)? "
    r"(?!(?:not|so|that|this|it|have (?!an?\b)|need|want|anything|nothing|understand|appreciate|know|take|value|care|"
    r"keep|"
    r"share|offer|hope|apologi[sz]e|get|see|wish|mind)\b)[a-z]+"
)

# A third party's deed told with its figure: "ordered 1,200 units last quarter".
DEED = re.compile(
    r"\b(?:ordered|bought|purchased|spent|paid|sold|closed|won|booked|signed) (?:about |around |over |nearly |almost |"
    r"roughly |just over |just under )?\$?\d"
)

# A rough figure ("about forty", "nearly a hundred"), unless in a sentence about the asker's own account or public
# facts ("you can apply online in about ten minutes").
ROUGHLY = re.compile(
    r"\b(?:a bit|a little|just|well|slightly|somewhat) (?:over|under|above|below|north of|south of) \$?\d|"
    r"\b(?:tens|hundreds) of thousands\b|\b(?:right|just|exactly) at the (?:limit|ceiling|cap|max(?:imum)?|"
    r"threshold)\b|"
    r"\b(?:around|about|roughly|approximately|nearly|almost|just over|just under) (?:a |an )?(?:dozen|hundred|"
    r"thousand|handful|(?:two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty)\b)|"
    r"\b(?:low|mid|high|upper|lower)[- ](?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|"
    r"nineties|hundreds|thousands|\d+s)\b"
)

# Set against a third party or an internal mark: "better than theirs", "longer than our 48-hour internal target",
# "a few percent below what you were quoted".
VERSUS = re.compile(
    r"\bthan (?:you (?:are|did|were|do|have)|theirs|them|they|he|she|him|hers|his|others|most|anyone else|"
    r"other (?:customers|retailers|accounts|"
    r"buyers|stores|shoppers|clients|reps|agents)|what (?:they|he|she|[a-z]+ (?:got|paid|was|were|gets|pays))|"
    r"our (?:[\w-]+ ){0,3}?(?:target|limit|threshold|goal|sla|standard|benchmark|cap|floor|minimum|maximum))\b|"
    r"\b(?:a few|a couple of|several|\d+|two|three|five|ten) (?:percent|%|points?|dollars|bucks) (?:below|above|under|"
    r"over|less|more|cheaper|higher|lower)\b"
)

# A third party's record told: "her most recent case is still open", "the other distributor's deal is at the
# proposal stage" — not what is said of it as a secret ("her account is private").
THEIR_RECORD = re.compile(
    r"\b(?:his|her|their|its|[a-z]+'s) (?:(?:most recent|latest|last|current|open|new|recent) )?(?:\w+ )?(?:deal|quote|"
    r"case|order|opportunit(?:y|ies)|pipeline|discount|contract|ticket|team|attainment|score|quota|commission|"
    r"territor(?:y|ies)|stage|status|balance|purchase)s?(?: (?:is|was|are|were|has|have|had|sits?|stands?|closes?|"
    r"got|gets?)\b|:)(?! (?:\w+ )?(?:confidential|private|protected|personal|not|n't|kept|between|internal|"
    r"off[- ]limits|restricted|sensitive|their (?:own )?business|his (?:own )?business|her (?:own )?business|"
    r"something|a matter|for (?:him|her|them)|only|handled|managed|covered)\b)"
)

# Who handles a thing, or what became of a record: "the midwest is handled by the chicago team", "the case was
# closed last week" — not a team named as where to go ("handled by our privacy team").
HANDLED = re.compile(
    r"\b(?:is|'s|are|'re) (?:now |currently )?(?:with|assigned to|owned by|sitting with|in the hands of) "
    r"(?!(?:a|an|our|the|your|you|us|me|him|her|them|whoever|someone|somebody|one|each|every|all)\b)[a-z]{3,}\b|"
    r"\b(?:moved|passed|went|bounced|transferred|changed hands) (?:\w+ )?(?:between|through|among) (?:two|three|four|"
    r"five|several|a few|\d+) (?:agents|people|reps|hands|colleagues|teams)\b|"
    r"\b(?:it|they|the deal|their deal|that deal|the opportunity|their opportunity|the order|their order)(?:'s| is|"
    r" was|"
    r"'ve| have| has)? (?:\w+ )?(?:wrapped up|closed out|went through|fell through|got signed|closed successfully|"
    r"not open any ?more|no longer open|still open|still in progress)\b|"
    r"\b(?:is|are) (?:both |all )?(?:on|in) (?:that|the|this|their|his|her) (?:[\w-]+ )?team\b|"
    r"\b(?:is|are|was|were) (?:handled|managed|covered|owned|run|served|worked) by "
    r"(?!(?:a|an|our|the) (?:dedicated |specialist |separate |specialised |specialized )?(?:team|department|group|"
    r"desk)\b)|"
    r"\b(?:the (?:case|order|package|parcel|deal|quote|account|ticket|shipment|return)(?: (?:for|of|from|on) "
    r"[\w\".' -]{1,30}?)?|it) (?:was|were|has been|"
    r"had been) (?:\w+ )?(?:closed|opened|shipped|delivered|sent|about|approved|signed|resolved|cancel+ed|"
    r"returned|refunded|won|lost|escalated|filed|raised)\b(?:(?<=about)|(?= (?:on|in|at|after|before|last|"
    r"yesterday|by|to|with|this|earlier)\b))|"
    r"\b(?:(?:cases?|leads?|tickets?|requests?|orders?) go|goes|is routed|are routed|gets? routed|is assigned|"
    r"are assigned|gets? assigned|is sent|are sent|"
    r"gets? escalated|are escalated|is escalated) (?:straight |directly |automatically )?to (?:a|the) "
    r"(?:[\w-]+ ){0,2}?(?:queue|tier|team lead|supervisor|manager|specialist|agent|rep|person|owner)\b|"
    r"\bassigned round-robin\b|\b(?:delivered|shipped|dispatched|refunded|redeemed) (?:on (?:jan|feb|mar|apr|may|jun|"
    r"jul|"
    r"aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)\w*|yesterday|last (?:week|month|monday|tuesday|wednesday|"
    r"thursday|friday))\b|\b(?:are|is|get|gets) (?:sorted|prioriti[sz]ed|ranked|ordered|triaged) by\b|"
    r"\b(?:also )?covers? (?:everything|all of|the whole|the rest of)\b|\b(?:is|it's|'s) still (?:open|pending|active|"
    r"unresolved|being handled)\b|\b(?:is|are) split (?:between|among) (?:\d+|two|three|four)\b|"
    r"\bhas (?:an? |\w+ )?(?:open |active |pending |live )?(?:deal|opportunity|quote|case|order)s? "
    r"(?:in|at|with|for|open|pending|closing)\b|\bin the (?:\w+ )?stage\b"
)

# A fact about the person asked about, wherever it is ("she lives in denver, but i can't…", "he's in seattle"),
# not a question ("whether they ordered from us").
PERSONAL_FACT = re.compile(
    r"(?<!whether )(?<!if )\b(?:(?:he|she|they) (?:lives?|is based|are based|is located|are located|ordered|bought|"
    r"placed|works? at|moved|opened|filed|raised|called|emailed|contacted|returned|cancel+ed)|(?:he's|she's|they're|"
    r"he is|she is|they are) (?:in|from|based|located)|"
    r"(?:he|she|they) (?:already |also |still )?(?:has|have|had) (?:an? )?(?:open |active |existing |recent |"
    r"pending )?(?:case|account|order|ticket|deal|quote|complaint)s?|"
    r"(?:shipped|delivered|sent|went|mailed) to (?:an? )?(?:address |home |house |apartment |office )?in|"
    r"(?:order|package|parcel|shipment|return|refund) (?:shipped|went out|arrived|was received|was delivered|"
    r"was sent|was processed|was issued)|"
    r"(?:was|were) (?:\w+ )?(?:redeemed|used|applied|delivered|shipped|charged|refunded) (?:on|to|at|by) (?:his|her|"
    r"their)|"
    r"(?:his|her|their) (?:replacement|refund|delivery|shipment|parcel|package|return|exchange) (?:ships|shipped|"
    r"arrives|"
    r"arrived|went|goes|is due|was due))\b"
)

# Confirming the person is a customer at all: "is indeed one of our customers", "is registered in our system" —
# not when the reply only echoes the question ("whether she is registered").
MEMBER = re.compile(
    r"(?:\b(?:is|are)|'s|'re) (?:indeed |in fact |definitely |already |actually )?(?:registered|on file|"
    r"in our (?:system|records|database|books)|(?:one of )?our (?:customers?|clients?|members?|account holders?)|"
    r"an? (?:existing|current|active|valued|regular|loyal|returning) (?:customer|client|member|account holder)|"
    r"an? (?:customer|client|member|buyer|stockist|partner) of ours)\b|"
    r"\b(?:has|have|'s|'ve) (?:been (?:with us|(?:an? )?(?:[\w-]+ )?(?:customer|client|member|shopper|buyer)s?|"
    r"shopping with us|buying from us|ordering from us)|"
    r"(?:already )?(?:bought|ordered|purchased|shopped) (?:from|with) us)\b|"
    r"(?:\b(?:is|are)|'s|'re) (?:\w+ )?(?:a )?regulars?\b|\b(?:not a new name|a familiar name|not new to us|"
    r"familiar to us|known to us)\b|"
    r"\b(?:been |have been |'ve been )(?:working|doing business|partnered|partnering) with (?:them|him|her)\b|"
    r"\b(?:has|have|had) an? (?:[\w-]+ )?account with us\b|\b(?:through|via) (?:his|her|their) account\b|"
    r"\b(?:match(?:es)?|matching) (?:an? |one of our )?(?:account|record|customer|client|profile)s?\b"
)

TELLING = re.compile(
    r"\b(?:here (?:it|they) (?:is|are)|(?:here's|here is|here are)(?! what (?:i|we) can (?:do|offer)| how| some "
    r"options| a few options)|i can tell you|i can say|i can share|i can confirm|"
    r"i'll tell you|i will tell you|let me tell you|the answer is|the short answer is|in short(?! form| supply| order)|"
    r"roughly|"
    r"approximately|broadly|basically|in general(?! terms)|(?:he|she|they) (?:lives?|is based|are based|is located|"
    r"are located|ordered|bought|does \w+|do \w+|did \w+)|(?:cases )?goes to the|"
    r"(?:his|her|their) (?:email|e-mail|phone|number|"
    r"address|orders?|purchases?) (?:is|are|was|were)|it works like this|works as follows|the rule is|"
    r"the criteria are|we (?:pick|choose|assign|route|look at|check)|one of (?:our|the) (?:top|best|highest|lowest|"
    r"worst|strongest|weakest|busiest|fastest|slowest))\b|"
    r"\bat the [\w-]+(?: [\w-]+)? stage\b"
)

# What announces a disclosure ("i can confirm that…", "in short, …", "if that helps"), a leak unless the rest of
# its sentence declines, redirects or speaks of the asker's own account or public facts.
ANNOUNCER = re.compile(
    r"\b(?:(?:i|we)(?:,? \w+,)? can(?:,? \w+,)? (?:confirm|tell you|say|share|mention|note|reveal|disclose|add)|"
    r"what (?:i|we) can (?:say|tell you|share) is|in short(?! form| supply| order)|in brief|basically|essentially|"
    r"put simply|in general|"
    r"generally speaking|as a rule|the short version|(?:if|in case) (?:it|that|this) helps|for context|fwiw|p\.s\.|"
    r"(?:i|we) can let you know|just so you know|without giving (?:too much|anything|much) away|"
    r"(?:i|we) can see(?: that)?|(?:it|the system|our records|the records?|the article|"
    r"the notes?) (?:does )?(?:shows?|says?)|"
    r"(?:does|do|did) say|to be fair|what (?:i|we) (?:can tell you|know)|here's what (?:i|we) (?:know|can tell you)|"
    r"(?:i'll|i will) tell you|for comparison|just know|generally|typically)"
    r"(?: that)?\b"
)

# A rank told ("sam topped the qa scores", "she ranked second", "our top rep was"), wherever it is, unless it is
# the question asked ("who our top rep is").
RANK = re.compile(
    r"\b(?:did |does )?(?:topped|tops|top) (?:the|our|all|every|his|her|their)\b|"
    r"\b(?:ranked|ranks|placed|came(?: in)?|finished) (?:\w+ )?(?:first|second|third|last|top|bottom)\b|"
    r"\b(?:top|best|highest|lowest|worst|leading)(?:-\w+)? (?:performer|rep|agent|seller|closer|scorer|earner)s?"
    r"(?: [\w-]+){0,5}? (?:is|was|are|were|has been|last|\w+ed)\b|\b(?:is|was|are|were|'s|been) (?:\w+ )?(?:our|"
    r"the) (?:top|best|highest|"
    r"lowest|worst|leading|fastest|slowest|strongest|weakest|busiest|quickest|most \w+|least \w+)(?:[- ]\w+)? "
    r"(?:performer|rep|agent|seller|closer|scorer|earner)s?\b|"
    r"\b(?:second|third|fourth|fifth)[- ](?:largest|biggest|best|highest|lowest|top|busiest|fastest)\b|(?:number one|"
    r"no\. ?\d|#\d)\b|"
    r"\b(?:top|bottom) (?:\d+|two|three|four|five|ten|quartile|half|third|tier|percent|%)"
    r"(?! (?:of )?(?:reasons|questions))\b|"
    r"\b(?:is|are|was|were|'s|'re) the (?:lowest|highest|best|worst|top|fastest|slowest|biggest|smallest|largest|"
    r"strongest|weakest|most|least)(?=[.!,;]|$| on\b| in\b| of\b| among\b| this\b| last\b| across\b)|"
    r"\b(?:was|is|were|are|finished|came|ranked|placed) (?:\w+ )?(?:first|second|third|fourth|fifth|last) "
    r"(?:on|in|among|of|place|overall)\b|"
    r"\b(?:our|the) (?:largest|biggest|top|best|most valuable|highest-value) (?:account|customer|client|deal|"
    r"buyer|retailer)s?\b(?! (?:ratings?|service|experience|satisfaction|care|support|reviews?)\b)|"
    r"\b(?:among|one of) (?:our|the) (?:\w+ )?"
    r"(?:top|best|highest|lowest|worst|strongest|weakest|busiest|fastest|slowest|most|least)\b"
)
