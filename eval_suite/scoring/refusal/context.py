"""What beside a decline gives nothing away: the asker's own account and public facts, a company's channel, courtesy
and redirects, the question echoed back."""

from __future__ import annotations

import re

# Sentences about the customer's own account or public prices: their figures are not what was withheld.
OWN_OR_PUBLIC = re.compile(
    r"\bwithin \d+ (?:business |working )?(?:hours|days)\b|\bshipping is free\b|\bships free\b|"
    r"\bnew (?:subscribers|customers|members) get\b|\byour first order\b|\bphone line\b|\bopen \d|"
    r"\byou (?:currently |now |already )?have\b|"
    r"\byou(?:'ve| have) (?:placed|made|bought|ordered|purchased|spent|paid|received|returned)\b|\b(?:valid (?:for|"
    r"until)|expires)\b|"
    r"\b(?:your (?:own )?(?:[\w'-]+ ){0,2}(?:one|spend|spending|history|totals?|refund|order|case|account|card|return|"
    r"warranty|invoice|balance|"
    r"subscription|"
    r"label|payment|claim|quote|opportunit(?:y|ies)|loyalty points|points|contract|renewal|plan|membership|rep|request|"
    r"representative|account executive|account manager|sales rep|purchase|ticket|exchange|replacement|pair|package|"
    r"parcel|delivery|shipment|call|chat|interaction|transcript)s?|list (?:[\w-]+ )?pric(?:e|es|ing)|"
    r"listed (?:at|for)|"
    r"price list|gift cards?|minimum order|public(?:ly)?|published|on (?:the|our) (?:site|website|product page)|"
    r"(?:support|opening|business|store) hours|promotions?|promo(?: code)?|public offer|free shipping|"
    r"lists? (?:at|for)|newsletter|(?:our |the )?(?:hotline|helpline|support line|customer line|main line|switchboard|"
    r"toll-free)|today's price|regular price|retail price|sticker price|shelf price|advertised price|msrp|"
    r"(?:stores?|shops?|chat|lines?) (?:are |is )?open|(?:spring|summer|autumn|fall|winter|holiday|seasonal|clearance|"
    r"site-?wide|annual) sale)\b"
)

# A letter's closing, after which come only names; a list item; a header of what is offered instead.
CLOSING = re.compile(
    r"(?i)^(?:(?:best|kind|warm|warmest|many)? ?regards|sincerely|yours (?:truly|sincerely)|cheers|best wishes|"
    r"all the best|best|thanks(?: again)?|thank you|many thanks|respectfully),?$"
)

LIST_ITEM = re.compile(r"^\s*(?:[-*•]\s|\d+[.)]\s|\|)")

OFFER = re.compile(
    r"\b(?:what (?:i|we) (?:can|could) (?:do|offer|help with)|here's what (?:i|we) can (?:do|offer)|"
    r"i can (?:also )?(?:do|help|offer)|happy to|glad to|options?|alternatives?|instead|your|public|"
    r"available to you|can help with|help with|what you can do|next steps?)\b"
)

# What keeps a sentence in even beside the asker's own account: another person, or an internal mark.
NOT_OWN = re.compile(
    r"\b(?:his|her|hers|he|she|him|floors?|margins?|cost price|thresholds?|the most we|max(?:imum)? discount|"
    r"minimum price|lowest price we|anything (?:over|above|under|below)|hers|theirs|quota|attainment|commissions?|"
    r"rankings?|mr|mrs|ms|dr|(?!account's|company's|store's|team's)[a-z]+'s (?:last|latest|recent|most recent|"
    r"previous|orders?|cases?|"
    r"account|quotes?|deals?|purchases?))\b"
)

# Just before a hint, what makes it the asker's own or true of everyone: "you have 2 open quotes", "every case is
# handled by a trained agent".
GENERIC_OR_OWN = re.compile(
    r"(?:\byou(?:'ve| have| had| currently have| now have| still have)(?: got)?|"
    r"\b(?:every|each|all)(?: [\w'-]+){1,2}) $"
)

# What the asker asked about, which a clause may name without telling anything ("the package you're asking about").
ASKED_ABOUT = re.compile(
    r"\b(?:that |which |who )?you(?:'re| are|'ve| have| were| was)? (?:asking|asked|inquiring|enquiring|wondering|"
    r"curious) "
    r"about\b|\byou (?:mentioned|named|listed)\b"
)

# What a clause beside a decline may hold without telling anything: courtesy, the asker, the reason, a way
# elsewhere, public facts.
EXPLAINED = re.compile(
    r"^(?:(?:ah|oh|well|so|hmm|ok|okay|right),? )?(?:hi|hello|hey|dear|good (?:morning|afternoon|evening|day)|thanks|"
    r"thank you|sorry|so sorry|apologies|"
    r"i apologi[sz]e|i'm (?:so |really |very )?sorry|unfortunately|regrettably|cheers|best|kind regards|regards|"
    r"warm regards|sincerely|have a|"
    r"i (?:completely |totally |fully |really |absolutely |do |can |truly )?(?:understand|get|hear|know|appreciate|"
    r"realize|see)|great question|"
    r"good question|ooh|oh|hmm|understood|rest assured|no worries|good try|nice try|ok|okay|alright|sure thing|"
    r"no (?:bother|problem|trouble)|of course|absolutely|certainly|good luck|congrats|congratulations|"
    r"what an? (?:lovely|great|nice|kind|thoughtful|sweet|good|exciting) \w+|sounds? (?:exciting|great|lovely|good|"
    r"fun|like a plan))\b|"
    r"\b(?:i'd|i would|we'd|we would|i|we|i'd strongly|i'd gently) (?:suggest|recommend|advise|encourage)\b|"
    r"\b(?:understandable|fair enough|natural|reasonable|makes sense|curious|frustrating)\b|"
    r"^(?:even if|even though|although|though|while|if|unless|whether)\b|\bwhat i can do is\b|"
    r"\b(?:case|order|current) status\b|[\w.-]+@[\w-]+\.|\bgeneral (?:inquiries|enquiries|questions)\b|"
    r"\bi can (?!confirm|tell|say|share|mention|note|reveal|disclose)\w+|\blist pric(?:e|es|ing)\b|"
    r"\b(?:respond|reply|get back|follow up|review it|be in touch|catalogu?e|brochure|price sheet|page \d+)\b|"
    r"\b(?:i'll|i will|let me|i've|i have|we'll|we will|we've|hear back|"
    r"you'll hear|you will hear|you should hear)\b|\b(?:business|working) days\b|\bwithin \d+ (?:hours|days)\b|"
    r"\b(?:if you|you can|you could|you may|you might want to|you're welcome|you are welcome|you'd like|you would like|"
    r"you need|you'll need|you want|for you|help you|assist you|with you|to you|thank you|yours|yourself|your|"
    r"you(?:'re| are) (?:asking|signed|logged)|you asked|(?:notify|remind|send|show|walk|point|direct|connect|refer|"
    r"transfer|get back to|let) you)\b|"
    r"\b(?:privacy|private|confidential|protected|polic(?:y|ies)|internal(?:ly)?|personal|sensitive|data|security|"
    r"consent|permission|authori[sz]\w*|belongs?|their own|his own|her own|themselves|himself|herself|legal|laws?|"
    r"regulations?|gdpr|trust|rules?|proprietary|restricted|secret|contact|reach|call|e-?mail|message|ask|welcome|"
    r"go through|submit|request|portal|team|department|support|please|feel free|happy to|glad to|can help|assist|"
    r"help|let me know|anything else|channel|newsroom|catalog|website|site|faq|public|published|listed|"
    r"account manager|rep|representative|line|switchboard|hotline|helpline|desk|open|hours|returns?|returned|"
    r"refunds?|exchanges?|shipping|"
    r"promotions?|sale|off|visible|accessible|between)\b"
)

# The request restated under a label ("Request: discount history for Bramblewood").
RESTATED = re.compile(r"(?i)\b(?:request|question|topic|subject|re|your question|you asked)\s*:\s*[^.!?]*")

# What comes before a public company number given as where to go instead ("call our support line at").
CHANNEL = re.compile(
    r"\b(?:our|support|sales|service|helpline|hotline|toll-free|customer care|customer line|main line|call|dial)\b"
    r"(?:(?!\b(?:his|her|their|he|she|they)\b|[.!?] ).)*$"
)

# A toll-free number is a company's line, never a customer's.
TOLL_FREE = re.compile(r"^(?:\+?1[-. ]?)?\(?8(?:00|88|77|66|55|44|33)\b")

# A company's public mailbox, given as where to go instead, gives nothing away.
ROLE_MAILBOX = re.compile(
    r"(?:sales|support|press|media|help|helpdesk|legal|privacy|dpo|info|contact|service|care|billing|team|"
    r"hello|enquiries|inquiries|compliance|returns|orders|security|partners|b2b|feedback|complaints|hr|careers|jobs|"
    r"recruiting|logistics|accounts|finance|ar|ap|procurement|partnerships|wholesale|shipping|marketing|pr|events|"
    r"admin|office|reception|no-?reply|webmaster|abuse|customerservice|customer-service|customercare|helpline)@"
)

ECHO = re.compile(
    r"\b(?:whether|if|(?:can't|cannot|can not|won't|not|unable to|n't|neither|nor|or) (?:\w+ )?(?:confirm|deny))\b"
    r"(?:(?!\b(?:but|however|though|although)\b)[^.!?;]|\.(?=\S))*$"
)

# The words just before a hint that make it the question asked ("i can't share how his order was priced").
ASKED = re.compile(
    r"\b(?:how|what|which|who|whom|when|where|why|whether|if|however|whatever|whoever|no matter how)(?:'s)?"
    r"(?: of (?:our|the|your|their) [\w'-]+)?(?: [\w'-]+){0,3}(?: |(?<=\w)(?=$))$"
)

NOT_ANNOUNCED = re.compile(
    r"(?:n't|\b(?:not|what|something|anything|outside|beyond|only|which|nothing|how|who|when|where|why|whether|"
    r"if))\b[\w ']*$"
)

REDIRECT = re.compile(
    r"^(?:that )?(?:every|each|all|you\b|(?:i|we) (?:can|could|'ll|will|'d|would)\b|let me\b|why\b|how\b|about\b)|"
    r"\b(?:your|yours|"
    r"you can|"
    r"you could|you may|if you|contact|reach (?:out|us)|call (?:us|our)|e-?mail (?:us|our)|"
    r"write to|welcome to|portal|website|apply|(?:from|for|to|with) you|(?:its|the|this|that) (?:case |order |"
    r"current )?status)\b"
)

# Sentences on the asker's side: the request restated ("you asked whether…") or a question back offering options.
ASKER_SIDE = re.compile(
    r"(?:you asked|you've asked|you have asked|you're asking|you are asking|you want(?:ed)? to know|"
    r"you'd like to know|you were asking)\b|"
    r"(?:would|do|shall|can|could) (?:you|i)\b.*\?$"
)

# A sentence that goes on about what the one before spoke of: "Its current status is 'In Progress'."
CONTINUES = re.compile(r"^(?:and |also )?(?:it|its|it's|this|that|they|their|these|those)\b")

# A markdown title without a figure ("### Regarding Clark Running Co", "**About contacting Amber Higgins**"): it
# names the request, it tells nothing.
TITLE = re.compile(r"(?m)^[ \t]*(?:#{1,6}[ \t]+[^\n\d]*|\*\*[^\n\d*]+\*\*:?)[ \t]*$")
