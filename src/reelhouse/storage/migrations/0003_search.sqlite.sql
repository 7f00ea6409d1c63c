-- 0003 (SQLite): search over item and person names.
-- Names are stored folded (reelhouse.storage._search_fold: lower case,
-- accents dropped, punctuation spaced), indexed by B-tree indexes for
-- prefix ranges and by FTS5 trigram tables for substrings.  SQLite has no
-- accent folding of its own (the trigram tokenizer learnt remove_diacritics
-- only in 3.45), so triggers fold in SQL: each name goes through the
-- staging table search_fold, whose triggers fold it once (the replace()
-- steps generated from the fold's table) and move it on.  Only searchable
-- items are kept: not missing, not an extra, not an additional part.

CREATE TABLE search_items (
    id INTEGER PRIMARY KEY,                 -- the FTS rowid (stable across VACUUM)
    item_id TEXT NOT NULL UNIQUE,
    name_f TEXT NOT NULL,
    title_f TEXT NOT NULL,                  -- original title, '' when none
    sort_f TEXT NOT NULL
);
-- Prefix ranges read only these (covering) indexes, then sort by sort_f.
CREATE INDEX search_items_by_name ON search_items (name_f, sort_f, item_id, title_f);
CREATE INDEX search_items_by_title ON search_items (title_f, sort_f, item_id, name_f);
CREATE INDEX search_items_by_sort ON search_items (sort_f, item_id);   -- dense tiers read in this order
CREATE VIRTUAL TABLE search_items_fts USING fts5 (
    name_f, title_f, content = 'search_items', content_rowid = 'id', tokenize = 'trigram'
);

CREATE TABLE search_people (
    id INTEGER PRIMARY KEY,
    person_id TEXT NOT NULL UNIQUE,
    name_f TEXT NOT NULL,
    sort_f TEXT NOT NULL
);
CREATE INDEX search_people_by_name ON search_people (name_f, sort_f, person_id);
CREATE INDEX search_people_by_sort ON search_people (sort_f, person_id);
CREATE VIRTUAL TABLE search_people_fts USING fts5 (
    name_f, content = 'search_people', content_rowid = 'id', tokenize = 'trigram'
);

CREATE TRIGGER search_items_fts_insert AFTER INSERT ON search_items BEGIN
    INSERT INTO search_items_fts (rowid, name_f, title_f) VALUES (NEW.id, NEW.name_f, NEW.title_f);
END;
CREATE TRIGGER search_items_fts_delete AFTER DELETE ON search_items BEGIN
    INSERT INTO search_items_fts (search_items_fts, rowid, name_f, title_f)
    VALUES ('delete', OLD.id, OLD.name_f, OLD.title_f);
END;
CREATE TRIGGER search_people_fts_insert AFTER INSERT ON search_people BEGIN
    INSERT INTO search_people_fts (rowid, name_f) VALUES (NEW.id, NEW.name_f);
END;
CREATE TRIGGER search_people_fts_delete AFTER DELETE ON search_people BEGIN
    INSERT INTO search_people_fts (search_people_fts, rowid, name_f) VALUES ('delete', OLD.id, OLD.name_f);
END;

-- A row here lives for one statement: name, original title and sort name
-- joined by char(31), folded in place, split into search_items or
-- search_people (each field cut to 200 characters, like search_key() in
-- _search_fold), deleted.
CREATE TABLE search_fold (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,                     -- item, person
    ref_id TEXT NOT NULL,
    t TEXT NOT NULL
);

-- Exactly one of these two fires for a row (their WHEN clauses exclude each
-- other): names with a character beyond printable ASCII go through every
-- step, the others through the ASCII ones only.  A step is one UPDATE with
-- at most 20 nested replace() calls: SQLite's parser overflows near 30.
CREATE TRIGGER search_fold_wide AFTER INSERT ON search_fold
WHEN NEW.t GLOB '*[^' || char(31) || ' -~]*'
BEGIN
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(t), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' ') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(161), ' '), char(171), ' '), char(183), ' '), char(187), ' '), char(191), ' '), char(192), 'a'), char(193), 'a'), char(194), 'a'), char(195), 'a'), char(196), 'a'), char(197), 'a'), char(198), 'ae'), char(199), 'c'), char(200), 'e'), char(201), 'e'), char(202), 'e'), char(203), 'e'), char(204), 'i'), char(205), 'i'), char(206), 'i') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(207), 'i'), char(208), 'd'), char(209), 'n'), char(210), 'o'), char(211), 'o'), char(212), 'o'), char(213), 'o'), char(214), 'o'), char(216), 'o'), char(217), 'u'), char(218), 'u'), char(219), 'u'), char(220), 'u'), char(221), 'y'), char(222), 'th'), char(223), 'ss'), char(224), 'a'), char(225), 'a'), char(226), 'a'), char(227), 'a') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(228), 'a'), char(229), 'a'), char(230), 'ae'), char(231), 'c'), char(232), 'e'), char(233), 'e'), char(234), 'e'), char(235), 'e'), char(236), 'i'), char(237), 'i'), char(238), 'i'), char(239), 'i'), char(240), 'd'), char(241), 'n'), char(242), 'o'), char(243), 'o'), char(244), 'o'), char(245), 'o'), char(246), 'o'), char(248), 'o') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(249), 'u'), char(250), 'u'), char(251), 'u'), char(252), 'u'), char(253), 'y'), char(254), 'th'), char(255), 'y'), char(256), 'a'), char(257), 'a'), char(258), 'a'), char(259), 'a'), char(260), 'a'), char(261), 'a'), char(262), 'c'), char(263), 'c'), char(264), 'c'), char(265), 'c'), char(266), 'c'), char(267), 'c'), char(268), 'c') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(269), 'c'), char(270), 'd'), char(271), 'd'), char(272), 'd'), char(273), 'd'), char(274), 'e'), char(275), 'e'), char(276), 'e'), char(277), 'e'), char(278), 'e'), char(279), 'e'), char(280), 'e'), char(281), 'e'), char(282), 'e'), char(283), 'e'), char(284), 'g'), char(285), 'g'), char(286), 'g'), char(287), 'g'), char(288), 'g') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(289), 'g'), char(290), 'g'), char(291), 'g'), char(292), 'h'), char(293), 'h'), char(294), 'h'), char(295), 'h'), char(296), 'i'), char(297), 'i'), char(298), 'i'), char(299), 'i'), char(300), 'i'), char(301), 'i'), char(302), 'i'), char(303), 'i'), char(304), 'i'), char(305), 'i'), char(306), 'ij'), char(307), 'ij'), char(308), 'j') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(309), 'j'), char(310), 'k'), char(311), 'k'), char(312), 'k'), char(313), 'l'), char(314), 'l'), char(315), 'l'), char(316), 'l'), char(317), 'l'), char(318), 'l'), char(319), 'l '), char(320), 'l '), char(321), 'l'), char(322), 'l'), char(323), 'n'), char(324), 'n'), char(325), 'n'), char(326), 'n'), char(327), 'n'), char(328), 'n') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(329), char(700, 110)), char(330), 'n'), char(331), 'n'), char(332), 'o'), char(333), 'o'), char(334), 'o'), char(335), 'o'), char(336), 'o'), char(337), 'o'), char(338), 'oe'), char(339), 'oe'), char(340), 'r'), char(341), 'r'), char(342), 'r'), char(343), 'r'), char(344), 'r'), char(345), 'r'), char(346), 's'), char(347), 's'), char(348), 's') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(349), 's'), char(350), 's'), char(351), 's'), char(352), 's'), char(353), 's'), char(354), 't'), char(355), 't'), char(356), 't'), char(357), 't'), char(358), 't'), char(359), 't'), char(360), 'u'), char(361), 'u'), char(362), 'u'), char(363), 'u'), char(364), 'u'), char(365), 'u'), char(366), 'u'), char(367), 'u'), char(368), 'u') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(369), 'u'), char(370), 'u'), char(371), 'u'), char(372), 'w'), char(373), 'w'), char(374), 'y'), char(375), 'y'), char(376), 'y'), char(377), 'z'), char(378), 'z'), char(379), 'z'), char(380), 'z'), char(381), 'z'), char(382), 'z'), char(383), 's'), char(385), char(595)), char(386), char(387)), char(388), char(389)), char(390), char(596)), char(391), char(392)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(393), char(598)), char(394), char(599)), char(395), char(396)), char(398), char(477)), char(399), char(601)), char(400), char(603)), char(401), char(402)), char(403), char(608)), char(404), char(611)), char(406), char(617)), char(407), char(616)), char(408), char(409)), char(412), char(623)), char(413), char(626)), char(415), char(629)), char(416), 'o'), char(417), 'o'), char(418), char(419)), char(420), char(421)), char(422), char(640)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(423), char(424)), char(425), char(643)), char(428), char(429)), char(430), char(648)), char(431), 'u'), char(432), 'u'), char(433), char(650)), char(434), char(651)), char(435), char(436)), char(437), char(438)), char(439), char(658)), char(440), char(441)), char(444), char(445)), char(452), 'dz'), char(453), 'dz'), char(454), 'dz'), char(455), 'lj'), char(456), 'lj'), char(457), 'lj'), char(458), 'nj') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(459), 'nj'), char(460), 'nj'), char(461), 'a'), char(462), 'a'), char(463), 'i'), char(464), 'i'), char(465), 'o'), char(466), 'o'), char(467), 'u'), char(468), 'u'), char(469), 'u'), char(470), 'u'), char(471), 'u'), char(472), 'u'), char(473), 'u'), char(474), 'u'), char(475), 'u'), char(476), 'u'), char(478), 'a'), char(479), 'a') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(480), 'a'), char(481), 'a'), char(482), 'ae'), char(483), 'ae'), char(484), char(485)), char(486), 'g'), char(487), 'g'), char(488), 'k'), char(489), 'k'), char(490), 'o'), char(491), 'o'), char(492), 'o'), char(493), 'o'), char(494), char(658)), char(495), char(658)), char(496), 'j'), char(497), 'dz'), char(498), 'dz'), char(499), 'dz'), char(500), 'g') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(501), 'g'), char(502), char(405)), char(503), char(447)), char(504), 'n'), char(505), 'n'), char(506), 'a'), char(507), 'a'), char(508), 'ae'), char(509), 'ae'), char(510), 'o'), char(511), 'o'), char(512), 'a'), char(513), 'a'), char(514), 'a'), char(515), 'a'), char(516), 'e'), char(517), 'e'), char(518), 'e'), char(519), 'e'), char(520), 'i') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(521), 'i'), char(522), 'i'), char(523), 'i'), char(524), 'o'), char(525), 'o'), char(526), 'o'), char(527), 'o'), char(528), 'r'), char(529), 'r'), char(530), 'r'), char(531), 'r'), char(532), 'u'), char(533), 'u'), char(534), 'u'), char(535), 'u'), char(536), 's'), char(537), 's'), char(538), 't'), char(539), 't'), char(540), char(541)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(542), 'h'), char(543), 'h'), char(544), char(414)), char(546), char(547)), char(548), char(549)), char(550), 'a'), char(551), 'a'), char(552), 'e'), char(553), 'e'), char(554), 'o'), char(555), 'o'), char(556), 'o'), char(557), 'o'), char(558), 'o'), char(559), 'o'), char(560), 'o'), char(561), 'o'), char(562), 'y'), char(563), 'y'), char(570), char(11365)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(571), char(572)), char(573), char(410)), char(574), char(11366)), char(577), char(578)), char(579), char(384)), char(580), char(649)), char(581), char(652)), char(582), char(583)), char(584), char(585)), char(586), char(587)), char(588), char(589)), char(590), char(591)), char(768), ''), char(769), ''), char(770), ''), char(771), ''), char(772), ''), char(773), ''), char(774), ''), char(775), '') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(776), ''), char(777), ''), char(778), ''), char(779), ''), char(780), ''), char(781), ''), char(782), ''), char(783), ''), char(784), ''), char(785), ''), char(786), ''), char(787), ''), char(788), ''), char(789), ''), char(790), ''), char(791), ''), char(792), ''), char(793), ''), char(794), ''), char(795), '') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(796), ''), char(797), ''), char(798), ''), char(799), ''), char(800), ''), char(801), ''), char(802), ''), char(803), ''), char(804), ''), char(805), ''), char(806), ''), char(807), ''), char(808), ''), char(809), ''), char(810), ''), char(811), ''), char(812), ''), char(813), ''), char(814), ''), char(815), '') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(816), ''), char(817), ''), char(818), ''), char(819), ''), char(820), ''), char(821), ''), char(822), ''), char(823), ''), char(824), ''), char(825), ''), char(826), ''), char(827), ''), char(828), ''), char(829), ''), char(830), ''), char(831), ''), char(832), ''), char(833), ''), char(834), ''), char(835), '') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(836), ''), char(837), ''), char(838), ''), char(839), ''), char(840), ''), char(841), ''), char(842), ''), char(843), ''), char(844), ''), char(845), ''), char(846), ''), char(847), ''), char(848), ''), char(849), ''), char(850), ''), char(851), ''), char(852), ''), char(853), ''), char(854), ''), char(855), '') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(856), ''), char(857), ''), char(858), ''), char(859), ''), char(860), ''), char(861), ''), char(862), ''), char(863), ''), char(864), ''), char(865), ''), char(866), ''), char(867), ''), char(868), ''), char(869), ''), char(870), ''), char(871), ''), char(872), ''), char(873), ''), char(874), ''), char(875), '') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(876), ''), char(877), ''), char(878), ''), char(879), ''), char(880), char(881)), char(882), char(883)), char(884), char(697)), char(886), char(887)), char(890), ' '), char(895), char(1011)), char(902), char(945)), char(904), char(949)), char(905), char(951)), char(906), char(953)), char(908), char(959)), char(910), char(965)), char(911), char(969)), char(912), char(953)), char(913), char(945)), char(914), char(946)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(915), char(947)), char(916), char(948)), char(917), char(949)), char(918), char(950)), char(919), char(951)), char(920), char(952)), char(921), char(953)), char(922), char(954)), char(923), char(955)), char(924), char(956)), char(925), char(957)), char(926), char(958)), char(927), char(959)), char(928), char(960)), char(929), char(961)), char(931), char(963)), char(932), char(964)), char(933), char(965)), char(934), char(966)), char(935), char(967)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(936), char(968)), char(937), char(969)), char(938), char(953)), char(939), char(965)), char(940), char(945)), char(941), char(949)), char(942), char(951)), char(943), char(953)), char(944), char(965)), char(962), char(963)), char(970), char(953)), char(971), char(965)), char(972), char(959)), char(973), char(965)), char(974), char(969)), char(975), char(983)), char(976), char(946)), char(977), char(952)), char(978), char(965)), char(979), char(965)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(980), char(965)), char(981), char(966)), char(982), char(960)), char(984), char(985)), char(986), char(987)), char(988), char(989)), char(990), char(991)), char(992), char(993)), char(994), char(995)), char(996), char(997)), char(998), char(999)), char(1000), char(1001)), char(1002), char(1003)), char(1004), char(1005)), char(1006), char(1007)), char(1008), char(954)), char(1009), char(961)), char(1010), char(963)), char(1012), char(952)), char(1013), char(949)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(1015), char(1016)), char(1017), char(963)), char(1018), char(1019)), char(1021), char(891)), char(1022), char(892)), char(1023), char(893)), char(1024), char(1077)), char(1025), char(1077)), char(1026), char(1106)), char(1027), char(1075)), char(1028), char(1108)), char(1029), char(1109)), char(1030), char(1110)), char(1031), char(1110)), char(1032), char(1112)), char(1033), char(1113)), char(1034), char(1114)), char(1035), char(1115)), char(1036), char(1082)), char(1037), char(1080)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(1038), char(1091)), char(1039), char(1119)), char(1040), char(1072)), char(1041), char(1073)), char(1042), char(1074)), char(1043), char(1075)), char(1044), char(1076)), char(1045), char(1077)), char(1046), char(1078)), char(1047), char(1079)), char(1048), char(1080)), char(1049), char(1080)), char(1050), char(1082)), char(1051), char(1083)), char(1052), char(1084)), char(1053), char(1085)), char(1054), char(1086)), char(1055), char(1087)), char(1056), char(1088)), char(1057), char(1089)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(1058), char(1090)), char(1059), char(1091)), char(1060), char(1092)), char(1061), char(1093)), char(1062), char(1094)), char(1063), char(1095)), char(1064), char(1096)), char(1065), char(1097)), char(1066), char(1098)), char(1067), char(1099)), char(1068), char(1100)), char(1069), char(1101)), char(1070), char(1102)), char(1071), char(1103)), char(1081), char(1080)), char(1104), char(1077)), char(1105), char(1077)), char(1107), char(1075)), char(1111), char(1110)), char(1116), char(1082)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(1117), char(1080)), char(1118), char(1091)), char(1120), char(1121)), char(1122), char(1123)), char(1124), char(1125)), char(1126), char(1127)), char(1128), char(1129)), char(1130), char(1131)), char(1132), char(1133)), char(1134), char(1135)), char(1136), char(1137)), char(1138), char(1139)), char(1140), char(1141)), char(1142), char(1141)), char(1143), char(1141)), char(1144), char(1145)), char(1146), char(1147)), char(1148), char(1149)), char(1150), char(1151)), char(1152), char(1153)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(1162), char(1163)), char(1164), char(1165)), char(1166), char(1167)), char(1168), char(1169)), char(1170), char(1171)), char(1172), char(1173)), char(1174), char(1175)), char(1176), char(1177)), char(1178), char(1179)), char(1180), char(1181)), char(1182), char(1183)), char(1184), char(1185)), char(1186), char(1187)), char(1188), char(1189)), char(1190), char(1191)), char(1192), char(1193)), char(1194), char(1195)), char(1196), char(1197)), char(1198), char(1199)), char(1200), char(1201)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(1202), char(1203)), char(1204), char(1205)), char(1206), char(1207)), char(1208), char(1209)), char(1210), char(1211)), char(1212), char(1213)), char(1214), char(1215)), char(1216), char(1231)), char(1217), char(1078)), char(1218), char(1078)), char(1219), char(1220)), char(1221), char(1222)), char(1223), char(1224)), char(1225), char(1226)), char(1227), char(1228)), char(1229), char(1230)), char(1232), char(1072)), char(1233), char(1072)), char(1234), char(1072)), char(1235), char(1072)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(1236), char(1237)), char(1238), char(1077)), char(1239), char(1077)), char(1240), char(1241)), char(1242), char(1241)), char(1243), char(1241)), char(1244), char(1078)), char(1245), char(1078)), char(1246), char(1079)), char(1247), char(1079)), char(1248), char(1249)), char(1250), char(1080)), char(1251), char(1080)), char(1252), char(1080)), char(1253), char(1080)), char(1254), char(1086)), char(1255), char(1086)), char(1256), char(1257)), char(1258), char(1257)), char(1259), char(1257)) WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(1260), char(1101)), char(1261), char(1101)), char(1262), char(1091)), char(1263), char(1091)), char(1264), char(1091)), char(1265), char(1091)), char(1266), char(1091)), char(1267), char(1091)), char(1268), char(1095)), char(1269), char(1095)), char(1270), char(1271)), char(1272), char(1099)), char(1273), char(1099)), char(1274), char(1275)), char(1276), char(1277)), char(1278), char(1279)), char(7680), 'a'), char(7681), 'a'), char(7682), 'b'), char(7683), 'b') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7684), 'b'), char(7685), 'b'), char(7686), 'b'), char(7687), 'b'), char(7688), 'c'), char(7689), 'c'), char(7690), 'd'), char(7691), 'd'), char(7692), 'd'), char(7693), 'd'), char(7694), 'd'), char(7695), 'd'), char(7696), 'd'), char(7697), 'd'), char(7698), 'd'), char(7699), 'd'), char(7700), 'e'), char(7701), 'e'), char(7702), 'e'), char(7703), 'e') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7704), 'e'), char(7705), 'e'), char(7706), 'e'), char(7707), 'e'), char(7708), 'e'), char(7709), 'e'), char(7710), 'f'), char(7711), 'f'), char(7712), 'g'), char(7713), 'g'), char(7714), 'h'), char(7715), 'h'), char(7716), 'h'), char(7717), 'h'), char(7718), 'h'), char(7719), 'h'), char(7720), 'h'), char(7721), 'h'), char(7722), 'h'), char(7723), 'h') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7724), 'i'), char(7725), 'i'), char(7726), 'i'), char(7727), 'i'), char(7728), 'k'), char(7729), 'k'), char(7730), 'k'), char(7731), 'k'), char(7732), 'k'), char(7733), 'k'), char(7734), 'l'), char(7735), 'l'), char(7736), 'l'), char(7737), 'l'), char(7738), 'l'), char(7739), 'l'), char(7740), 'l'), char(7741), 'l'), char(7742), 'm'), char(7743), 'm') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7744), 'm'), char(7745), 'm'), char(7746), 'm'), char(7747), 'm'), char(7748), 'n'), char(7749), 'n'), char(7750), 'n'), char(7751), 'n'), char(7752), 'n'), char(7753), 'n'), char(7754), 'n'), char(7755), 'n'), char(7756), 'o'), char(7757), 'o'), char(7758), 'o'), char(7759), 'o'), char(7760), 'o'), char(7761), 'o'), char(7762), 'o'), char(7763), 'o') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7764), 'p'), char(7765), 'p'), char(7766), 'p'), char(7767), 'p'), char(7768), 'r'), char(7769), 'r'), char(7770), 'r'), char(7771), 'r'), char(7772), 'r'), char(7773), 'r'), char(7774), 'r'), char(7775), 'r'), char(7776), 's'), char(7777), 's'), char(7778), 's'), char(7779), 's'), char(7780), 's'), char(7781), 's'), char(7782), 's'), char(7783), 's') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7784), 's'), char(7785), 's'), char(7786), 't'), char(7787), 't'), char(7788), 't'), char(7789), 't'), char(7790), 't'), char(7791), 't'), char(7792), 't'), char(7793), 't'), char(7794), 'u'), char(7795), 'u'), char(7796), 'u'), char(7797), 'u'), char(7798), 'u'), char(7799), 'u'), char(7800), 'u'), char(7801), 'u'), char(7802), 'u'), char(7803), 'u') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7804), 'v'), char(7805), 'v'), char(7806), 'v'), char(7807), 'v'), char(7808), 'w'), char(7809), 'w'), char(7810), 'w'), char(7811), 'w'), char(7812), 'w'), char(7813), 'w'), char(7814), 'w'), char(7815), 'w'), char(7816), 'w'), char(7817), 'w'), char(7818), 'x'), char(7819), 'x'), char(7820), 'x'), char(7821), 'x'), char(7822), 'y'), char(7823), 'y') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7824), 'z'), char(7825), 'z'), char(7826), 'z'), char(7827), 'z'), char(7828), 'z'), char(7829), 'z'), char(7830), 'h'), char(7831), 't'), char(7832), 'w'), char(7833), 'y'), char(7834), char(97, 702)), char(7835), 's'), char(7838), 'ss'), char(7840), 'a'), char(7841), 'a'), char(7842), 'a'), char(7843), 'a'), char(7844), 'a'), char(7845), 'a'), char(7846), 'a') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7847), 'a'), char(7848), 'a'), char(7849), 'a'), char(7850), 'a'), char(7851), 'a'), char(7852), 'a'), char(7853), 'a'), char(7854), 'a'), char(7855), 'a'), char(7856), 'a'), char(7857), 'a'), char(7858), 'a'), char(7859), 'a'), char(7860), 'a'), char(7861), 'a'), char(7862), 'a'), char(7863), 'a'), char(7864), 'e'), char(7865), 'e'), char(7866), 'e') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7867), 'e'), char(7868), 'e'), char(7869), 'e'), char(7870), 'e'), char(7871), 'e'), char(7872), 'e'), char(7873), 'e'), char(7874), 'e'), char(7875), 'e'), char(7876), 'e'), char(7877), 'e'), char(7878), 'e'), char(7879), 'e'), char(7880), 'i'), char(7881), 'i'), char(7882), 'i'), char(7883), 'i'), char(7884), 'o'), char(7885), 'o'), char(7886), 'o') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7887), 'o'), char(7888), 'o'), char(7889), 'o'), char(7890), 'o'), char(7891), 'o'), char(7892), 'o'), char(7893), 'o'), char(7894), 'o'), char(7895), 'o'), char(7896), 'o'), char(7897), 'o'), char(7898), 'o'), char(7899), 'o'), char(7900), 'o'), char(7901), 'o'), char(7902), 'o'), char(7903), 'o'), char(7904), 'o'), char(7905), 'o'), char(7906), 'o') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7907), 'o'), char(7908), 'u'), char(7909), 'u'), char(7910), 'u'), char(7911), 'u'), char(7912), 'u'), char(7913), 'u'), char(7914), 'u'), char(7915), 'u'), char(7916), 'u'), char(7917), 'u'), char(7918), 'u'), char(7919), 'u'), char(7920), 'u'), char(7921), 'u'), char(7922), 'y'), char(7923), 'y'), char(7924), 'y'), char(7925), 'y'), char(7926), 'y') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t, char(7927), 'y'), char(7928), 'y'), char(7929), 'y'), char(7930), char(7931)), char(7932), char(7933)), char(7934), char(7935)), char(8211), ' '), char(8212), ' '), char(8216), ' '), char(8217), ' '), char(8220), ' '), char(8221), ' '), char(8230), ' ') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(t, '  ', ' '), '  ', ' ') WHERE id = NEW.id;
    INSERT INTO search_items (item_id, name_f, title_f, sort_f)
    SELECT ref_id, rtrim(substr(trim(substr(t, 1, a - 1), ' '), 1, 200), ' '), rtrim(substr(trim(substr(t, a + 1, b - 1), ' '), 1, 200), ' '), rtrim(substr(trim(substr(t, a + b + 1), ' '), 1, 200), ' ')
    FROM (SELECT ref_id, t, a, instr(substr(t, a + 1), char(31)) AS b
          FROM (SELECT ref_id, t, instr(t, char(31)) AS a FROM search_fold WHERE id = NEW.id AND kind = 'item'));
    INSERT INTO search_people (person_id, name_f, sort_f)
    SELECT ref_id, rtrim(substr(trim(substr(t, 1, a - 1), ' '), 1, 200), ' '), rtrim(substr(trim(substr(t, a + b + 1), ' '), 1, 200), ' ')
    FROM (SELECT ref_id, t, a, instr(substr(t, a + 1), char(31)) AS b
          FROM (SELECT ref_id, t, instr(t, char(31)) AS a FROM search_fold WHERE id = NEW.id AND kind = 'person'));
    DELETE FROM search_fold WHERE id = NEW.id;
END;
CREATE TRIGGER search_fold_ascii AFTER INSERT ON search_fold
WHEN NOT NEW.t GLOB '*[^' || char(31) || ' -~]*'
BEGIN
    UPDATE search_fold SET t = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(t), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' ') WHERE id = NEW.id;
    UPDATE search_fold SET t = replace(replace(t, '  ', ' '), '  ', ' ') WHERE id = NEW.id;
    INSERT INTO search_items (item_id, name_f, title_f, sort_f)
    SELECT ref_id, rtrim(substr(trim(substr(t, 1, a - 1), ' '), 1, 200), ' '), rtrim(substr(trim(substr(t, a + 1, b - 1), ' '), 1, 200), ' '), rtrim(substr(trim(substr(t, a + b + 1), ' '), 1, 200), ' ')
    FROM (SELECT ref_id, t, a, instr(substr(t, a + 1), char(31)) AS b
          FROM (SELECT ref_id, t, instr(t, char(31)) AS a FROM search_fold WHERE id = NEW.id AND kind = 'item'));
    INSERT INTO search_people (person_id, name_f, sort_f)
    SELECT ref_id, rtrim(substr(trim(substr(t, 1, a - 1), ' '), 1, 200), ' '), rtrim(substr(trim(substr(t, a + b + 1), ' '), 1, 200), ' ')
    FROM (SELECT ref_id, t, a, instr(substr(t, a + 1), char(31)) AS b
          FROM (SELECT ref_id, t, instr(t, char(31)) AS a FROM search_fold WHERE id = NEW.id AND kind = 'person'));
    DELETE FROM search_fold WHERE id = NEW.id;
END;

-- What a name becomes in search_fold.t: its three fields, char(31) inside
-- a field spaced (it is the separator).
CREATE TRIGGER search_items_insert AFTER INSERT ON items
WHEN NEW.missing = 0 AND NEW.owner_id IS NULL AND NEW.extra_type IS NULL
BEGIN
    INSERT INTO search_fold (kind, ref_id, t)
    VALUES ('item', NEW.id, replace(NEW.name, char(31), ' ') || char(31)
        || replace(coalesce(NEW.original_title, ''), char(31), ' ') || char(31)
        || replace(NEW.sort_name, char(31), ' '));
END;
CREATE TRIGGER search_items_update AFTER UPDATE OF name, original_title, sort_name, missing, owner_id, extra_type ON items
WHEN OLD.name IS NOT NEW.name OR OLD.original_title IS NOT NEW.original_title
    OR OLD.sort_name IS NOT NEW.sort_name OR OLD.missing IS NOT NEW.missing
    OR OLD.owner_id IS NOT NEW.owner_id OR OLD.extra_type IS NOT NEW.extra_type
BEGIN
    DELETE FROM search_items WHERE item_id = OLD.id;
    INSERT INTO search_fold (kind, ref_id, t)
    SELECT 'item', NEW.id, replace(NEW.name, char(31), ' ') || char(31)
        || replace(coalesce(NEW.original_title, ''), char(31), ' ') || char(31)
        || replace(NEW.sort_name, char(31), ' ')
    WHERE NEW.missing = 0 AND NEW.owner_id IS NULL AND NEW.extra_type IS NULL;
END;
CREATE TRIGGER search_items_delete AFTER DELETE ON items BEGIN
    DELETE FROM search_items WHERE item_id = OLD.id;
END;

CREATE TRIGGER search_people_insert AFTER INSERT ON people BEGIN
    INSERT INTO search_fold (kind, ref_id, t)
    VALUES ('person', NEW.id, replace(NEW.name, char(31), ' ') || char(31) || char(31)
        || replace(NEW.sort_name, char(31), ' '));
END;
CREATE TRIGGER search_people_update AFTER UPDATE OF name, sort_name ON people
WHEN OLD.name IS NOT NEW.name OR OLD.sort_name IS NOT NEW.sort_name
BEGIN
    DELETE FROM search_people WHERE person_id = OLD.id;
    INSERT INTO search_fold (kind, ref_id, t)
    VALUES ('person', NEW.id, replace(NEW.name, char(31), ' ') || char(31) || char(31)
        || replace(NEW.sort_name, char(31), ' '));
END;
CREATE TRIGGER search_people_delete AFTER DELETE ON people BEGIN
    DELETE FROM search_people WHERE person_id = OLD.id;
END;

-- What is already there.
INSERT INTO search_fold (kind, ref_id, t)
SELECT 'item', id, replace(name, char(31), ' ') || char(31)
    || replace(coalesce(original_title, ''), char(31), ' ') || char(31)
    || replace(sort_name, char(31), ' ')
FROM items WHERE missing = 0 AND owner_id IS NULL AND extra_type IS NULL;
INSERT INTO search_fold (kind, ref_id, t)
SELECT 'person', id, replace(name, char(31), ' ') || char(31) || char(31) || replace(sort_name, char(31), ' ')
FROM people;
