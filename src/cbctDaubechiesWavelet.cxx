#include "cbctDaubechiesWavelet.h"

#include "cbctInputChecks.h"

#include <algorithm>

namespace cbct
{

namespace
{
// Decomposition low-pass filters of db1 .. db10 (PyWavelets' dec_lo order): the minimum-phase
// spectral factors of Daubechies' polynomial P(y) = sum_k C(N - 1 + k, k) y^k, y = sin^2(w / 2),
// computed with 50-digit arithmetic and normalised to sum sqrt(2).
const std::vector<std::vector<double>> daubechiesLowPass = {
  { 0.707106781186547524401, 0.707106781186547524401 },
  { -0.129409522551260381174, 0.224143868042013381026, 0.836516303737807905575, 0.482962913144534143375 },
  { 0.0352262918857095366027, -0.0854412738820266616928, -0.135011020010254588696, 0.459877502118491570095, 0.806891509311092576494, 0.332670552950082615999 },
  { -0.0105974017850690321049, 0.0328830116668851997354, 0.0308413818355607636272, -0.18703481171909308408, -0.0279837694168598542114, 0.630880767929858907882, 0.71484657055291564709, 0.230377813308896500863 },
  { 0.003335725285473771278, -0.0125807519990819994685, -0.00624149021279827427419, 0.0775714938400457135231, -0.0322448695846383746485, -0.242294887066382031863, 0.138428145901320731505, 0.724308528437772927728, 0.60382926979718967054, 0.160102397974192914481 },
  { -0.00107730108530847956485, 0.00477725751094551063964, 0.000553842201161496139252, -0.0315820393174860295651, 0.0275228655303057286255, 0.0975016055873230491023, -0.129766867567261935562, -0.226264693965439820076, 0.315250351709197629086, 0.751133908021095350679, 0.494623890398453085677, 0.111540743350109463621 },
  { 0.000353713799974520248446, -0.00180164070404749091527, 0.000429577972921366521132, 0.012550998556099840613, -0.0165745416306668806541, -0.0380299369350144135796, 0.0806126091510830719129, 0.0713092192668302647509, -0.224036184993874982638, -0.143906003928564975405, 0.469782287405193122472, 0.729132090846235119917, 0.396539319481917306539, 0.07785205408500917902 },
  { -0.000117476784124769533731, 0.00067544940645056936637, -0.000391740373376947046298, -0.00487035299345157431042, 0.00874609404740577671638, 0.0139810279173982816487, -0.0440882539307947515068, -0.0173693010018075461696, 0.128747426620478458857, 0.000472484573913282770361, -0.284015542961546926516, -0.0158291052563493056674, 0.585354683654206712771, 0.675630736297289806808, 0.312871590914299970659, 0.054415842243104009955 },
  { 0.0000393473203162715994807, -0.000251963188942710136975, 0.000230385763523195967205, 0.00184764688305622647662, -0.0042815036824634298345, -0.00472320475775139727793, 0.0223616621236790972054, 0.000250947114831451957587, -0.0676328290613299736756, 0.0307256814793333792123, 0.148540749338106380135, -0.0968407832229764605135, -0.293273783279174908806, 0.133197385825007576191, 0.657288078051300538078, 0.604823123690111111903, 0.243834674612590353732, 0.0380779473638783465887 },
  { -0.0000132642028945212448124, 0.0000935886703200695913341, -0.000116466855129285450951, -0.000685856694959711626561, 0.00199240529518505611716, 0.00139535174705290116579, -0.0107331754833305750443, 0.00360655356695616965542, 0.0332126740593410017398, -0.0294575368218758128583, -0.0713941471663970871453, 0.0930573646035723511604, 0.127369340335793260083, -0.195946274377377043504, -0.249846424327315379416, 0.281172343660577460749, 0.688459039453603565742, 0.527201188931725586482, 0.188176800077691489021, 0.0266700579005555535866 },
};

int
DaubechiesOrder(const std::string & name)
{
  if (name == "haar")
    return 1;
  if (name.size() < 3 || name.compare(0, 2, "db") != 0 || name.size() > 4)
    return 0;
  int order = 0;
  for (std::size_t i = 2; i < name.size(); ++i)
  {
    if (name[i] < '0' || name[i] > '9')
      return 0;
    order = 10 * order + (name[i] - '0');
  }
  if (name[2] == '0' || order < 1 || order > static_cast<int>(daubechiesLowPass.size()))
    return 0;
  return order;
}
} // namespace

DaubechiesWavelet::DaubechiesWavelet(const std::string & name, const std::string & parameter)
  : m_Name(name)
{
  const int order = DaubechiesOrder(name);
  if (order == 0)
    ThrowBadParameter(parameter, "'" + name + "'", "one of " + KnownNames());
  m_LowPass = daubechiesLowPass[order - 1];
  const std::size_t length = m_LowPass.size();
  // The quadrature mirror: g[j] = (-1)^(j + 1) h[L - 1 - j].
  m_HighPass.resize(length);
  for (std::size_t j = 0; j < length; ++j)
    m_HighPass[j] = (j % 2 ? 1. : -1.) * m_LowPass[length - 1 - j];
}

bool
DaubechiesWavelet::IsKnown(const std::string & name)
{
  return DaubechiesOrder(name) > 0;
}

std::string
DaubechiesWavelet::KnownNames()
{
  std::string names = "haar";
  for (std::size_t n = 1; n <= daubechiesLowPass.size(); ++n)
    names += ", db" + std::to_string(n);
  return names;
}

void
DaubechiesWavelet::Analyze(const double * x, std::size_t samples, std::ptrdiff_t stride, double * low, double * high,
                           std::ptrdiff_t outStride) const
{
  const std::size_t length = m_LowPass.size();
  const std::size_t count = this->CoefficientCount(samples);
  for (std::size_t o = 0; o < count; ++o)
  {
    double l = 0., h = 0.;
    const long long centre = 2 * static_cast<long long>(o) + 1;
    for (std::size_t j = 0; j < length; ++j)
    {
      const double value = x[static_cast<std::ptrdiff_t>(SymmetricIndex(centre - static_cast<long long>(j), samples)) * stride];
      l += m_LowPass[j] * value;
      h += m_HighPass[j] * value;
    }
    low[static_cast<std::ptrdiff_t>(o) * outStride] = l;
    high[static_cast<std::ptrdiff_t>(o) * outStride] = h;
  }
}

void
DaubechiesWavelet::Synthesize(const double * low, const double * high, std::size_t count, std::ptrdiff_t inStride,
                              double * x, std::size_t samples, std::ptrdiff_t stride) const
{
  // x[n] = sum_o low[o] h[2o + 1 - n] + high[o] g[2o + 1 - n], over the o with 0 <= 2o + 1 - n < L.
  const long long length = static_cast<long long>(m_LowPass.size());
  for (std::size_t n = 0; n < samples; ++n)
  {
    const long long first = std::max(0LL, (static_cast<long long>(n)) / 2);
    const long long last = std::min(static_cast<long long>(count) - 1, (static_cast<long long>(n) + length - 2) / 2);
    double sum = 0.;
    for (long long o = first; o <= last; ++o)
    {
      const long long j = 2 * o + 1 - static_cast<long long>(n);
      if (j < 0 || j >= length)
        continue;
      sum += low[o * inStride] * m_LowPass[j] + high[o * inStride] * m_HighPass[j];
    }
    x[static_cast<std::ptrdiff_t>(n) * stride] = sum;
  }
}

} // namespace cbct
