// SPDX-License-Identifier: Apache-2.0
// transit-cpp benchmarks: twitter's statuses and users and citm's events and performances as
// C++ structs with their Records, shared by transit-bench (typed_bench.cpp) and
// transit-read-file (instruction counts of typed reads).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "transit/transit.h"

namespace transit::bench::typed {

// ---- twitter.json ------------------------------------------------------------------------------

struct User {
  std::int64_t id = 0;
  std::string id_str, name, screen_name, location, description, created_at, lang;
  std::optional<std::string> url, time_zone;
  std::optional<std::int64_t> utc_offset;
  bool is_protected = false, verified = false, following = false;
  std::int64_t followers_count = 0, friends_count = 0, listed_count = 0, favourites_count = 0,
               statuses_count = 0;
  std::string profile_image_url, profile_background_color;
};

struct Status {
  std::string created_at, id_str, text, source, lang;
  std::int64_t id = 0, retweet_count = 0, favorite_count = 0;
  bool truncated = false, favorited = false, retweeted = false;
  std::optional<std::int64_t> in_reply_to_status_id, in_reply_to_user_id;
  std::optional<std::string> in_reply_to_screen_name;
  User user;
};

struct Twitter {
  std::vector<Status> statuses;
};

// ---- citm_catalog.json -------------------------------------------------------------------------

struct CitmEvent {
  std::int64_t id = 0;
  std::optional<std::string> name, description, logo, subject_code, subtitle;
  std::vector<std::int64_t> sub_topic_ids, topic_ids;
};

struct Price {
  std::int64_t amount = 0, audience_sub_category_id = 0, seat_category_id = 0;
};

struct Area {
  std::int64_t area_id = 0;
  std::vector<std::int64_t> block_ids;
};

struct SeatCategory {
  std::vector<Area> areas;
  std::int64_t seat_category_id = 0;
};

struct Performance {
  std::int64_t event_id = 0, id = 0, start = 0;
  std::optional<std::string> logo, name, seat_map_image;
  std::vector<Price> prices;
  std::vector<SeatCategory> seat_categories;
  std::string venue_code;
};

struct Citm {
  std::map<std::string, CitmEvent> events;
  std::vector<Performance> performances;
  std::map<std::string, std::string> area_names, seat_category_names, venue_names;
};

inline ReadHandlers make_handlers() {
  ReadHandlers h;
  h.add(Record<User>("user")
            .field(&User::id, "id")
            .field(&User::id_str, "id_str")
            .field(&User::name, "name")
            .field(&User::screen_name, "screen_name")
            .field(&User::location, "location")
            .field(&User::description, "description")
            .field(&User::url, "url")
            .field(&User::is_protected, "protected")
            .field(&User::followers_count, "followers_count")
            .field(&User::friends_count, "friends_count")
            .field(&User::listed_count, "listed_count")
            .field(&User::created_at, "created_at")
            .field(&User::favourites_count, "favourites_count")
            .field(&User::utc_offset, "utc_offset")
            .field(&User::time_zone, "time_zone")
            .field(&User::verified, "verified")
            .field(&User::statuses_count, "statuses_count")
            .field(&User::lang, "lang")
            .field(&User::profile_background_color, "profile_background_color")
            .field(&User::profile_image_url, "profile_image_url")
            .field(&User::following, "following"));
  h.add(Record<Status>("status")
            .field(&Status::created_at, "created_at")
            .field(&Status::id, "id")
            .field(&Status::id_str, "id_str")
            .field(&Status::text, "text")
            .field(&Status::source, "source")
            .field(&Status::truncated, "truncated")
            .field(&Status::in_reply_to_status_id, "in_reply_to_status_id")
            .field(&Status::in_reply_to_user_id, "in_reply_to_user_id")
            .field(&Status::in_reply_to_screen_name, "in_reply_to_screen_name")
            .field(&Status::user, "user")
            .field(&Status::retweet_count, "retweet_count")
            .field(&Status::favorite_count, "favorite_count")
            .field(&Status::favorited, "favorited")
            .field(&Status::retweeted, "retweeted")
            .field(&Status::lang, "lang"));
  h.add(Record<Twitter>("twitter").field(&Twitter::statuses, "statuses"));
  h.add(Record<CitmEvent>("event")
            .field(&CitmEvent::description, "description")
            .field(&CitmEvent::id, "id")
            .field(&CitmEvent::logo, "logo")
            .field(&CitmEvent::name, "name")
            .field(&CitmEvent::sub_topic_ids, "subTopicIds")
            .field(&CitmEvent::subject_code, "subjectCode")
            .field(&CitmEvent::subtitle, "subtitle")
            .field(&CitmEvent::topic_ids, "topicIds"));
  h.add(Record<Price>("price")
            .field(&Price::amount, "amount")
            .field(&Price::audience_sub_category_id, "audienceSubCategoryId")
            .field(&Price::seat_category_id, "seatCategoryId"));
  h.add(Record<Area>("area").field(&Area::area_id, "areaId").field(&Area::block_ids, "blockIds"));
  h.add(Record<SeatCategory>("seat-category")
            .field(&SeatCategory::areas, "areas")
            .field(&SeatCategory::seat_category_id, "seatCategoryId"));
  h.add(Record<Performance>("performance")
            .field(&Performance::event_id, "eventId")
            .field(&Performance::id, "id")
            .field(&Performance::logo, "logo")
            .field(&Performance::name, "name")
            .field(&Performance::prices, "prices")
            .field(&Performance::seat_categories, "seatCategories")
            .field(&Performance::seat_map_image, "seatMapImage")
            .field(&Performance::start, "start")
            .field(&Performance::venue_code, "venueCode"));
  h.add(Record<Citm>("citm")
            .field(&Citm::events, "events")
            .field(&Citm::performances, "performances")
            .field(&Citm::area_names, "areaNames")
            .field(&Citm::seat_category_names, "seatCategoryNames")
            .field(&Citm::venue_names, "venueNames"));
  return h;
}

inline const ReadHandlers& handlers() {
  static const ReadHandlers h = make_handlers();
  return h;
}

}  // namespace transit::bench::typed
