"""Language codes of streams, normalised to ISO 639-2/B (the reference's
MediaStream ``language``): shared by ``probe`` and ``companions``."""

from __future__ import annotations

import re

# ISO 639-2 from the iso-codes package: "bcode", "alpha2:bcode" or
# "alpha2:bcode/tcode" where the terminology code differs.
_ISO_639 = """
    aa:aar ab:abk ace ach ada ady afa afh af:afr ain ak:aka akk ale alg alt am:amh
    ang anp apa ar:ara arc an:arg arn arp art arw as:asm ast ath aus av:ava ae:ave
    awa ay:aym az:aze bad bai ba:bak bal bm:bam ban bas bat bej be:bel bem bn:ben
    ber bho bh:bih bik bin bi:bis bla bnt bo:tib/bod bs:bos bra br:bre btk bua bug
    bg:bul byn cad cai car ca:cat cau ceb cel cs:cze/ces ch:cha chb ce:che chg chk
    chm chn cho chp chr cu:chu cv:chv chy cmc cnr cop kw:cor co:cos cpe cpf cpp
    cr:cre crh crp csb cus cy:wel/cym dak da:dan dar day del den de:ger/deu dgr din
    dv:div doi dra dsb dua dum dyu dz:dzo efi egy eka el:gre/ell elx en:eng enm
    eo:epo et:est eu:baq/eus ee:ewe ewo fan fo:fao fa:per/fas fat fj:fij fil fi:fin
    fiu fon fr:fre/fra frm fro frr frs fy:fry ff:ful fur gaa gay gba gem gez gil
    gd:gla ga:gle gl:glg gv:glv gmh goh gon gor got grb grc gn:grn gsw gu:guj gwi
    hai ht:hat ha:hau haw he:heb hz:her hil him hi:hin hit hmn ho:hmo hr:hrv hsb
    hu:hun hup hy:arm/hye iba ig:ibo io:ido ii:iii ijo iu:iku ie:ile ilo ia:ina inc
    id:ind ine inh ik:ipk ira iro is:ice/isl it:ita jv:jav jbo ja:jpn jpr jrb kaa
    kab kac kl:kal kam kn:kan kar ks:kas ka:geo/kat kr:kau kaw kk:kaz kbd kha khi
    km:khm kho ki:kik rw:kin ky:kir kmb kok kv:kom kg:kon ko:kor kos kpe krc krl kro
    kru kj:kua kum ku:kur kut lad lah lam lo:lao la:lat lv:lav lez li:lim ln:lin
    lt:lit lol loz lb:ltz lua lu:lub lg:lug lui lun luo lus mad mag mh:mah mai mak
    ml:mal man map mr:mar mas mdf mdr men mga mic min mis mk:mac/mkd mkh mg:mlg
    mt:mlt mnc mni mno moh mn:mon mos mi:mao/mri ms:may/msa mul mun mus mwl mwr
    my:bur/mya myn myv nah nai nap na:nau nv:nav nr:nbl nd:nde ng:ndo nds ne:nep new
    nia nic niu nl:dut/nld nn:nno nb:nob nog non no:nor nqo nso nub nwc ny:nya nym
    nyn nyo nzi oc:oci oj:oji or:ori om:orm osa os:oss ota oto paa pag pal pam
    pa:pan pap pau peo phi phn pi:pli pl:pol pon pt:por pra pro ps:pus qu:que raj
    rap rar roa rm:roh rom ro:rum/ron rn:run rup ru:rus sad sg:sag sah sai sal sam
    sa:san sas sat scn sco sel sem sga sgn shn sid si:sin sio sit sla sk:slo/slk
    sl:slv sma se:sme smi smj smn sm:smo sms sn:sna sd:snd snk sog so:som son st:sot
    es:spa sq:alb/sqi sc:srd srn sr:srp srr ssa ss:ssw suk su:sun sus sux sw:swa
    sv:swe syc syr ty:tah tai ta:tam tt:tat te:tel tem ter tet tg:tgk tl:tgl th:tha
    tig ti:tir tiv tkl tlh tli tmh tog to:ton tpi tsi tn:tsn ts:tso tk:tuk tum tup
    tr:tur tut tvl tw:twi tyv udm uga ug:uig uk:ukr umb und ur:urd uz:uzb vai ve:ven
    vi:vie vo:vol vot wak wal war was wen wa:wln wo:wol xal xh:xho yao yap yi:yid
    yo:yor ypk zap zbl zen zgh za:zha zh:chi/zho znd zu:zul zun zxx zza
"""
# Withdrawn, ISO 639-3 and other codes muxers and users still write.
_LANGUAGE_ALIASES = {
    "iw": "heb", "in": "ind", "ji": "yid", "jw": "jav", "mo": "rum", "mol": "rum",
    "scc": "srp", "scr": "hrv", "sh": "hrv", "cmn": "chi", "yue": "chi",
    "nan": "chi", "pes": "per", "prs": "per", "arb": "ara", "zsm": "may",
}
# Codes that mean "no language": a stream tagged so has no language.
NO_LANGUAGE_CODES = frozenset({"und", "zxx", "mis"})


def _language_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for token in _ISO_639.split():
        alpha2, _, codes = token.rpartition(":")
        bibliographic, _, terminology = codes.partition("/")
        table[bibliographic] = bibliographic
        for alias in (alpha2, terminology):
            if alias:
                table[alias] = bibliographic
    table.update(_LANGUAGE_ALIASES)
    return table


_LANGUAGES = _language_table()


def normalize_language(code: str | None) -> str | None:
    """The ISO 639-2/B code for a language code, or None.

    Accepts ISO 639-1 (``de``), 639-2/T (``deu``) and /B (``ger``) codes in
    any case, BCP 47 tags by their primary subtag (``pt-BR`` -> ``por``) and
    a few withdrawn or 639-3 codes muxers write (``iw``, ``cmn``). Unknown
    codes and "no language" codes (``und``, ``zxx``, ``mis``) give None.
    """
    if not code:
        return None
    primary = re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]
    if primary in NO_LANGUAGE_CODES:
        return None
    return _LANGUAGES.get(primary)
