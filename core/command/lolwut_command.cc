// LOLWUT [VERSION version] [args ...], as Redis 7.0's lolwut*.c: version 5 draws Georg Nees's
// Schotter in braille characters, version 6 a skyline in terminal grays, any other version (7,
// the default) prints the version line alone. The random parts differ at each call, as in
// Redis; the rest is Redis's drawing in the same arithmetic (float where Redis uses float).
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/base/redis_version.h"
#include "core/command/args.h"
#include "core/command/command_table.h"

namespace slotkv::command {
namespace {

// A pixel canvas, 0,0 at the top left; writes outside it are ignored.
class Canvas {
 public:
  Canvas(int width, int height, int background)
      : width_(width),
        height_(height),
        pixels_(static_cast<size_t>(width) * static_cast<size_t>(height),
                static_cast<char>(background)) {}
  int width() const { return width_; }
  int height() const { return height_; }
  void Draw(int x, int y, int color) {
    if (x < 0 || x >= width_ || y < 0 || y >= height_) return;
    pixels_[static_cast<size_t>(x + y * width_)] = static_cast<char>(color);
  }
  int Get(int x, int y) const {
    if (x < 0 || x >= width_ || y < 0 || y >= height_) return 0;
    return pixels_[static_cast<size_t>(x + y * width_)];
  }
  // Bresenham's line.
  void Line(int x1, int y1, int x2, int y2, int color) {
    const int dx = std::abs(x2 - x1), dy = std::abs(y2 - y1);
    const int sx = x1 < x2 ? 1 : -1, sy = y1 < y2 ? 1 : -1;
    int err = dx - dy;
    while (true) {
      Draw(x1, y1, color);
      if (x1 == x2 && y1 == y2) break;
      const int e2 = err * 2;
      if (e2 > -dy) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dx) {
        err += dx;
        y1 += sy;
      }
    }
  }
  // A square of side size centred at x,y, turned by angle (radians).
  void Square(int x, int y, float size, float angle, int color) {
    size /= 1.4142135623f;
    size = std::round(size);
    int px[4], py[4];
    float k = static_cast<float>(M_PI / 4) + angle;
    for (int j = 0; j < 4; ++j) {
      px[j] = static_cast<int>(std::round(std::sin(k) * size + static_cast<float>(x)));
      py[j] = static_cast<int>(std::round(std::cos(k) * size + static_cast<float>(y)));
      k += static_cast<float>(M_PI / 2);
    }
    for (int j = 0; j < 4; ++j) Line(px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4], color);
  }

 private:
  int width_;
  int height_;
  std::vector<char> pixels_;
};

// rand() as C has it: [0, RAND_MAX].
class Rand {
 public:
  int operator()() { return dist_(gen_); }

 private:
  std::mt19937 gen_{std::random_device{}()};
  std::uniform_int_distribution<int> dist_{0, RAND_MAX};
};

// Each 2x4 block of pixels as one braille character (U+2800 + its dots).
std::string Braille(const Canvas& c) {
  std::string text;
  for (int y = 0; y < c.height(); y += 4) {
    for (int x = 0; x < c.width(); x += 2) {
      const int dots = (c.Get(x, y) ? 1 : 0) | (c.Get(x, y + 1) ? 2 : 0) |
                       (c.Get(x, y + 2) ? 4 : 0) | (c.Get(x + 1, y) ? 8 : 0) |
                       (c.Get(x + 1, y + 1) ? 16 : 0) | (c.Get(x + 1, y + 2) ? 32 : 0) |
                       (c.Get(x, y + 3) ? 64 : 0) | (c.Get(x + 1, y + 3) ? 128 : 0);
      const int code = 0x2800 + dots;
      text.push_back(static_cast<char>(0xE0 | (code >> 12)));
      text.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      text.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
    if (y != c.height() - 1) text.push_back('\n');
  }
  return text;
}

// Version 5's Schotter: squares turned and moved more at each row down.
std::string Schotter(int64_t cols, int64_t per_row, int64_t per_col) {
  cols = std::clamp<int64_t>(cols, 1, 1000);
  const int rows_of = static_cast<int>(std::clamp<int64_t>(per_row, 1, 200));
  const int cols_of = static_cast<int>(std::clamp<int64_t>(per_col, 1, 200));
  const int width = static_cast<int>(cols) * 2;
  const int padding = width > 4 ? 2 : 0;
  const float side = static_cast<float>(width - padding * 2) / static_cast<float>(rows_of);
  Canvas canvas(width, static_cast<int>(side * static_cast<float>(cols_of)) + padding * 2, 0);
  Rand rnd;
  const auto unit = [&](int y) {
    return static_cast<float>(rnd()) / static_cast<float>(RAND_MAX) / static_cast<float>(cols_of) *
           static_cast<float>(y);
  };
  for (int y = 0; y < cols_of; ++y) {
    for (int x = 0; x < rows_of; ++x) {
      int sx =
          static_cast<int>(static_cast<float>(x) * side + side / 2 + static_cast<float>(padding));
      int sy =
          static_cast<int>(static_cast<float>(y) * side + side / 2 + static_cast<float>(padding));
      float angle = 0;
      if (y > 1) {
        float r1 = unit(y), r2 = unit(y), r3 = unit(y);
        if (rnd() % 2) r1 = -r1;
        if (rnd() % 2) r2 = -r2;
        if (rnd() % 2) r3 = -r3;
        angle = r1;
        sx = static_cast<int>(static_cast<float>(sx) + r2 * side / 3);
        sy = static_cast<int>(static_cast<float>(sy) + r3 * side / 3);
      }
      canvas.Square(sx, sy, side, angle, 1);
    }
  }
  return Braille(canvas) + "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. " +
         std::string(kRedisVersion) + "\n";
}

// One skyscraper of version 6's skyline: windows in the other grays, at random.
void Skyscraper(Canvas& c, Rand& rnd, int xoff, int width, int height, bool windows, int color) {
  const int start = c.height() - 1;
  const int end = start - height + 1;
  for (int y = start; y >= end; --y) {
    for (int x = xoff; x < xoff + width; ++x) {
      if (y == end && (x <= xoff + 1 || x >= xoff + width - 2)) continue;  // the roof
      int paint = color;
      if (windows && x > xoff + 1 && x < xoff + width - 2 && y > end + 1 && y < start - 1) {
        const int relx = x - (xoff + 1);
        const int rely = y - (end + 1);
        if (relx / 2 % 2 && rely % 2) {
          do {
            paint = 1 + rnd() % 2;
          } while (paint == color);
          if (relx % 2) paint = c.Get(x - 1, y);
        }
      }
      c.Draw(x, y, paint);
    }
  }
}

// Version 6's skyline, in the four grays of a color terminal.
std::string Skyline(int64_t cols, int64_t rows) {
  Canvas c(static_cast<int>(std::clamp<int64_t>(cols, 1, 1000)),
           static_cast<int>(std::clamp<int64_t>(rows, 1, 1000)), 3);
  Rand rnd;
  for (int color = 2; color >= 1; --color) {  // the lighter ones behind
    for (int offset = -10; offset < c.width();) {
      offset += rnd() % 8;
      const int width = 10 + rnd() % 9;
      const int height = color == 2 ? c.height() / 2 + rnd() % c.height() / 2
                                    : c.height() / 2 + rnd() % c.height() / 3;
      Skyscraper(c, rnd, offset, width, height, false, color);
      offset += color == 2 ? width / 2 : width + 1;
    }
  }
  for (int offset = -10; offset < c.width();) {
    offset += rnd() % 8;
    int width = 5 + rnd() % 14;
    if (width % 4) width += width % 3;
    const int height = c.height() / 3 + rnd() % c.height() / 2;
    Skyscraper(c, rnd, offset, width, height, true, 0);
    offset += width + 5;
  }
  constexpr const char* kGrays[] = {"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"};
  std::string text;
  for (int y = 0; y < c.height(); ++y) {
    for (int x = 0; x < c.width(); ++x) {
      text += "\033[";
      text += kGrays[c.Get(x, y) & 3];
      text += " \033[0m";
    }
    if (y != c.height() - 1) text.push_back('\n');
  }
  return text +
         "\nDedicated to the 8 bit game developers of past and present.\n"
         "Original 8 bit image from Plaguemon by hikikomori. Redis ver. " +
         std::string(kRedisVersion) + "\n";
}

Task Lolwut(AsyncContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  int64_t version = 7;
  size_t first = 1;  // the version's own arguments
  if (a.size() >= 3 && Is(a[1], "VERSION")) {
    std::optional<int64_t> v = IntArg(a[2], ctx.reply);
    if (!v) co_return;
    version = static_cast<int64_t>(static_cast<unsigned int>(*v));  // Redis's "%u.0.0"
    first = 3;
  }
  std::vector<int64_t> numbers;
  if (version == 5 || version == 6) {
    for (size_t j = first; j < a.size() && numbers.size() < (version == 5 ? 3u : 2u); ++j) {
      std::optional<int64_t> n = IntArg(a[j], ctx.reply);
      if (!n) co_return;
      numbers.push_back(*n);
    }
  }
  const auto arg = [&](size_t i, int64_t fallback) {
    return i < numbers.size() ? numbers[i] : fallback;
  };
  if (version == 5) {
    ctx.reply.Verbatim(Schotter(arg(0, 66), arg(1, 8), arg(2, 12)));
  } else if (version == 6) {
    ctx.reply.Verbatim(Skyline(arg(0, 80), arg(1, 20)));
  } else {
    ctx.reply.Verbatim("Redis ver. " + std::string(kRedisVersion) + "\n");
  }
}

}  // namespace

void RegisterLolwutCommand(CommandTable& t) {
  // clang-format off
  t.Add({.name = "lolwut", .arity = -1, .flags = kReadOnly | kFast, .run_async = Lolwut,
         .group = "server", .summary = "Display some computer art and the Redis version",
         .since = "5.0.0", .acl = "read fast"});
  // clang-format on
}

}  // namespace slotkv::command
