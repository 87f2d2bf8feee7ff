#include "apiserver/websocket.hpp"

#include <gtest/gtest.h>

namespace kpt::apiserver::ws {
namespace {

TEST(WebSocketAcceptKey, MatchesTheRfc6455Example) {
  // RFC 6455 section 1.3.
  EXPECT_EQ(accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketClientKey, IsTheBase64OfSixteenBytes) {
  EXPECT_TRUE(valid_client_key("dGhlIHNhbXBsZSBub25jZQ=="));
  EXPECT_FALSE(valid_client_key(""));
  EXPECT_FALSE(valid_client_key("dGhlIHNhbXBsZSBub25jZQ="));
  EXPECT_FALSE(valid_client_key("dGhlIHNhbXBsZSBub25jZ*=="));
}

TEST(WebSocketEncode, UsesTheShortestLengthForm) {
  EXPECT_EQ(encode_frame(Opcode::binary, "ab"), std::string("\x82\x02"
                                                            "ab",
                                                            4));
  const std::string medium(300, 'x');
  const std::string m = encode_frame(Opcode::text, medium);
  EXPECT_EQ(m.substr(0, 4), std::string("\x81\x7e\x01\x2c", 4));
  EXPECT_EQ(m.size(), 304u);
  const std::string big(70000, 'y');
  const std::string b = encode_frame(Opcode::binary, big);
  EXPECT_EQ(b.substr(0, 10), std::string("\x82\x7f\x00\x00\x00\x00\x00\x01\x11\x70", 10));
  EXPECT_EQ(b.size(), 70010u);
}

TEST(WebSocketDecoder, UnmasksClientFramesAndWaitsForWholeOnes) {
  const std::string frame = encode_frame(Opcode::binary, std::string("\x00hello", 6), true, 0x37fa213d);
  Decoder d(1024);
  std::optional<Violation> v;
  d.feed(frame.substr(0, 5));
  EXPECT_FALSE(d.next(v).has_value());
  EXPECT_FALSE(v.has_value());
  d.feed(frame.substr(5));
  const auto msg = d.next(v);
  ASSERT_TRUE(msg.has_value());
  EXPECT_EQ(msg->opcode, Opcode::binary);
  EXPECT_EQ(msg->payload, std::string("\x00hello", 6));
  EXPECT_EQ(d.buffered(), 0u);
}

TEST(WebSocketDecoder, JoinsFragmentsAndPassesControlFramesBetweenThem) {
  Decoder d(1024);
  d.feed(encode_frame(Opcode::binary, "ab", false, 1));
  d.feed(encode_frame(Opcode::ping, "p", true, 2));
  d.feed(encode_frame(Opcode::continuation, "cd", true, 3));
  std::optional<Violation> v;
  const auto ping = d.next(v);
  ASSERT_TRUE(ping.has_value());
  EXPECT_EQ(ping->opcode, Opcode::ping);
  EXPECT_EQ(ping->payload, "p");
  const auto whole = d.next(v);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->opcode, Opcode::binary);
  EXPECT_EQ(whole->payload, "abcd");
  EXPECT_FALSE(v.has_value());
}

TEST(WebSocketDecoder, RefusesWhatRfc6455Forbids) {
  struct Case {
    const char* name;
    std::string bytes;
    std::uint16_t code;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"unmasked client frame", encode_frame(Opcode::binary, "x"), k_close_protocol_error,
       "client frames must be masked"},
      {"reserved bit", std::string("\xc2\x80\0\0\0\0", 6), k_close_protocol_error,
       "reserved bits set without an extension"},
      {"unknown opcode", std::string("\x83\x80\0\0\0\0", 6), k_close_protocol_error, "unknown opcode 3"},
      {"fragmented ping", encode_frame(Opcode::ping, "x", false, 1), k_close_protocol_error,
       "control frames must be whole and at most 125 bytes"},
      {"long ping", encode_frame(Opcode::ping, std::string(126, 'p'), true, 1), k_close_protocol_error,
       "control frames must be whole and at most 125 bytes"},
      {"stray continuation", encode_frame(Opcode::continuation, "x", true, 1), k_close_protocol_error,
       "continuation frame outside a fragmented message"},
      {"message too big", encode_frame(Opcode::binary, std::string(65, 'z'), true, 1), k_close_too_big,
       "message larger than 64 bytes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Decoder d(64);
    d.feed(c.bytes);
    std::optional<Violation> v;
    EXPECT_FALSE(d.next(v).has_value());
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->close_code, c.code);
    EXPECT_EQ(v->reason, c.reason);
  }
}

TEST(WebSocketDecoder, RefusesAnOversizedFrameFromItsHeaderAlone) {
  // A header announcing 2^40 bytes is refused before any payload arrives.
  Decoder d(1 << 20);
  d.feed(std::string("\x82\xff\x00\x00\x01\x00\x00\x00\x00\x00", 10));
  std::optional<Violation> v;
  EXPECT_FALSE(d.next(v).has_value());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->close_code, k_close_too_big);
}

TEST(WebSocketDecoder, RefusesFragmentsThatTogetherExceedTheLimit) {
  Decoder d(10);
  d.feed(encode_frame(Opcode::binary, "123456", false, 1));
  d.feed(encode_frame(Opcode::continuation, "789012", true, 1));
  std::optional<Violation> v;
  EXPECT_FALSE(d.next(v).has_value());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->reason, "message larger than 10 bytes");
}

TEST(WebSocketClosePayload, PutsTheCodeFirstAndBoundsTheReason) {
  EXPECT_EQ(close_payload(1000), std::string("\x03\xe8", 2));
  EXPECT_EQ(close_payload(1001, "bye"), std::string("\x03\xe9"
                                                    "bye",
                                                    5));
  EXPECT_EQ(close_payload(1000, std::string(200, 'r')).size(), 125u);
}

}  // namespace
}  // namespace kpt::apiserver::ws
